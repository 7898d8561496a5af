// Command cassette-shim is what a CLI shim of `cassette observe` runs on
// each call: a small binary that sends the call to the observe run and
// then runs the fake (see internal/shimcall). `cassette observe` uses it
// when it is installed next to the cassette binary, and runs `cassette
// observe --shim` in its place otherwise.
package main

import (
	"os"

	"github.com/cassette-dev/cassette/internal/shimcall"
)

func main() {
	os.Exit(shimcall.Main(os.Args[1:], os.Stdin, os.Stderr))
}
