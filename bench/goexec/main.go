// Command goexec is the floor of a shim written in Go: a program that
// imports nothing but os and syscall and execs its arguments (goexec
// /bin/true ARGS...). bench/compare.sh measures it beside cmd/cassette-shim:
// what a shim costs over it is the shim's own work, the rest is the Go
// runtime's start.
package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	os.Stderr.WriteString("goexec: " + err.Error() + "\n")
	os.Exit(127)
}
