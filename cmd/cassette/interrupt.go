package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/cassette-dev/cassette/outcome"
)

// interrupts holds the SIGINT and SIGTERM a writing command receives
// (record, import), so that a signal never kills it halfway through a
// write: the command passes them on to the program it records, or stops
// its own work at the next step, then saves nothing and ends with
// E_INTERRUPTED.
type interrupts struct {
	ch   chan os.Signal
	mu   sync.Mutex
	got  os.Signal
	stop func()
}

// catchInterrupts starts holding SIGINT and SIGTERM; release gives them
// back to their default (a second Ctrl-C after the command ended kills).
func catchInterrupts() *interrupts {
	i := &interrupts{ch: make(chan os.Signal, 4)}
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM)
	i.stop = func() { signal.Stop(i.ch) }
	return i
}

func (i *interrupts) release() { i.stop() }

// context is ctx, cancelled at the first signal (which signal it was:
// signal). Use it or the raw channel, never both.
func (i *interrupts) context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case s := <-i.ch:
			i.mu.Lock()
			i.got = s
			i.mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// catchContext is ctx (Background when nil) cancelled at the first SIGINT
// or SIGTERM, with the interrupts that say which; stop gives the signals
// back to their default.
func catchContext(ctx context.Context) (_ context.Context, _ *interrupts, stop func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	ints := catchInterrupts()
	ctx, cancel := ints.context(ctx)
	return ctx, ints, func() { cancel(); ints.release() }
}

// signal is the signal that cancelled the context, nil when none did.
func (i *interrupts) signal() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.got
}

// interruptedError is the error of a run a signal stopped: nothing of it
// was written; next runs it again.
func interruptedError(sig os.Signal, what, next string) *outcome.Error {
	return &outcome.Error{Reason: outcome.EInterrupted, NextStep: next,
		Message: fmt.Sprintf("interrupted (%s): %s; nothing was written; run the same command again", sig, what)}
}
