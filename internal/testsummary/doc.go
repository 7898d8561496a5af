// Command testsummary reads `go test -json` on standard input and prints
// what `go test` prints without -json (each package's ok or FAIL line, the
// output of the tests that failed), then one line that says which tests
// were skipped and why, so that a green `make test` also says what it did
// not cover (a tool that is not installed, a benchmark left out). It exits
// 1 when a package failed or did not build.
//
// It is a tool of the Makefile, not of cassette: it imports nothing of the
// project. A skip's reason is the last line the test logged before it
// skipped (what t.Skip says); skips of the same reason in the same package
// are counted together.
package main
