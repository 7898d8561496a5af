// Command cassette records real HTTP(S) and CLI interactions into cassettes,
// verifies fakes against them, and refreshes them on a schedule.
package main

import (
	"os"

	"github.com/cassette-dev/cassette/internal/recording"
)

func main() {
	recording.Supervise() // a command record runs: before anything else
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
