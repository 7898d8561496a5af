//go:build !linux

package importer

import "errors"

// exchange is not available outside Linux: the import then moves its
// files one by one.
func exchange(a, b string) error { return errors.New("no RENAME_EXCHANGE on this system") }
