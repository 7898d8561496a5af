//go:build !unix

package demo_test

import "testing"

// chrootRunner skips the test: where podman cannot start a container, the
// image's root file system runs under chroot, which is unix only.
func chrootRunner(t *testing.T, _, _, _ string) func(args ...string) string {
	t.Helper()
	t.Skip("podman cannot start a container here, and running the image's root file system under chroot is unix only")
	return nil
}
