// Package interrupt ends the reading phase of a command at Ctrl-C: a
// command that reads before it judges (coverage reads observations and
// cassettes, report merge reads shards' reports) stops reading at SIGINT
// or SIGTERM with E_INTERRUPTED (exit 3), so that its caller ends the run
// as every other, its reports written, instead of dying with status 130
// and leaving the previous run's verdict on disk.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// EnvTestHold names a FIFO that holds the reading phase until the signal,
// for a test to interrupt a phase that otherwise ends too fast (coverage
// reads regular files only): once the phase starts, it writes "ready" to
// the FIFO (the open blocks until the test reads it: readiness, not a
// sleep) and then waits for a signal, reading nothing. Unset, or naming
// nothing that opens, it changes nothing.
const EnvTestHold = "CASSETTE_TEST_HOLD"

// Reading runs read, a phase that only reads and writes nothing, and
// returns what it returns; a SIGINT or SIGTERM before it returned ends it
// with E_INTERRUPTED instead, whose next step, again, runs the command
// once more. A read still blocked (a FIFO, a slow disk) is left to the
// process's end. The signals are caught only while it runs.
func Reading(what, again string, read func() error) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		if hold(ctx) {
			return // held until the signal: read never runs
		}
		done <- read()
	}()
	select {
	case err := <-done:
		return err
	case sig := <-sigs:
		return &outcome.Error{Reason: outcome.EInterrupted, NextStep: again,
			Message: fmt.Sprintf("interrupted (%s) while %s: nothing was judged; run the same command again", sig, what)}
	}
}

// hold is EnvTestHold: it reports whether it held the phase until ctx
// was done.
func hold(ctx context.Context) bool {
	path := os.Getenv(EnvTestHold)
	if path == "" {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	_, _ = f.WriteString("ready\n")
	f.Close()
	<-ctx.Done()
	return true
}
