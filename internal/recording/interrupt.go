package recording

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Interrupts holds the SIGINT and SIGTERM a writing command receives
// (record, import), so that a signal never kills it halfway through a
// write: the command passes them on to the program it records, or stops
// its own work at the next step, then saves nothing and ends with
// E_INTERRUPTED.
type Interrupts struct {
	ch   chan os.Signal
	mu   sync.Mutex
	got  os.Signal
	stop func()
}

// CatchInterrupts starts holding SIGINT and SIGTERM; Release gives them
// back to their default (a second Ctrl-C after the command ended kills).
func CatchInterrupts() *Interrupts {
	i := &Interrupts{ch: make(chan os.Signal, 4)}
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM)
	i.stop = func() { signal.Stop(i.ch) }
	return i
}

// Release gives the signals back to their default handling.
func (i *Interrupts) Release() { i.stop() }

// C is the channel the signals arrive on, for a recorded command to pass
// them on (CLIOptions.Signals). Use it or Context, never both.
func (i *Interrupts) C() <-chan os.Signal { return i.ch }

// Context is ctx, cancelled at the first signal (which signal it was:
// Signal). Use it or the raw channel, never both.
func (i *Interrupts) Context(ctx context.Context) (context.Context, context.CancelFunc) {
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

// CatchContext is ctx (Background when nil) cancelled at the first
// SIGINT or SIGTERM, with the interrupts that say which (Signal); stop
// gives the signals back to their default.
func CatchContext(ctx context.Context) (_ context.Context, _ *Interrupts, stop func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	ints := CatchInterrupts()
	ctx, cancel := ints.Context(ctx)
	return ctx, ints, func() { cancel(); ints.Release() }
}

// Signal is the signal that cancelled the context, nil when none did.
func (i *Interrupts) Signal() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.got
}

// InterruptedError is the error of a run a signal stopped: nothing of it
// was written; next runs it again.
func InterruptedError(sig os.Signal, what, next string) *outcome.Error {
	return &outcome.Error{Reason: outcome.EInterrupted, NextStep: next,
		Message: fmt.Sprintf("interrupted (%s): %s; nothing was written; run the same command again", sig, what)}
}
