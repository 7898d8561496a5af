//go:build !unix

package verify

import "syscall"

// peekOpen: without a peek that does not wait, a kept connection counts
// as open; one the fake closed fails before its answer and is sent again
// on a new connection where net/http would (fakeTransport.RoundTrip).
func peekOpen(syscall.RawConn) bool { return true }
