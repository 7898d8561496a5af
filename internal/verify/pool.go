package verify

import (
	"context"
	"runtime"
	"sync"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// MaxFakesAhead bounds how many fresh fakes verify starts ahead of the
// cases that will use them (see freshPool).
const MaxFakesAhead = 16

// fakesAhead is how many fresh fakes are started ahead: enough to keep
// every CPU busy while fakes become ready (2×GOMAXPROCS), at least 2 and at
// most MaxFakesAhead (each is a live process holding a port).
func fakesAhead() int {
	return min(max(2*runtime.GOMAXPROCS(0), 2), MaxFakesAhead)
}

// freshPool starts the fresh fakes of a run ahead of the cases that use
// them, so that a case takes a fake that is already ready instead of
// waiting for a process to start. Each fake is started for one case (in
// plan order, logging to that case's log) and is used by that case only:
// no case ever sees another case's fake. At most `ahead` fakes are started
// and not yet taken at any time; close stops those that no case took (the
// run was interrupted), including any still starting.
type freshPool struct {
	ctx    context.Context // the starts' context; cancelled by close
	cancel context.CancelFunc
	start  func(ctx context.Context, i int) (*Process, error)
	slots  map[int]*slot // case index → its fake, for the planned cases
	ahead  chan struct{} // one token per fake started and not yet taken
	wg     sync.WaitGroup

	mu sync.Mutex // guards the slots' state
}

type slot struct { // its fields are guarded by freshPool.mu
	started  bool // its start was begun
	taken    bool // its case asked for it
	dropped  bool // its case ended without it
	received bool // its outcome was read (and the fake handed on or stopped)
	result   chan startedFake
}

type startedFake struct {
	p   *Process
	err error
}

// newFreshPool starts, in the order of plan (case indexes), the fakes of
// those cases with start, at most ahead of them at once, and returns at
// once. The starts run on ahead goroutines that each take the next case
// in turn (a goroutine a fake was a new stack to grow for each case).
func newFreshPool(ctx context.Context, plan []int, ahead int, start func(ctx context.Context, i int) (*Process, error)) *freshPool {
	ctx, cancel := context.WithCancel(ctx)
	ahead = max(ahead, 1)
	f := &freshPool{ctx: ctx, cancel: cancel, start: start, slots: map[int]*slot{}, ahead: make(chan struct{}, ahead)}
	for _, i := range plan {
		f.slots[i] = &slot{result: make(chan startedFake, 1)}
	}
	next := 0 // the index in plan of the next case to start; guarded by f.mu
	for range min(ahead, len(plan)) {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for {
				select {
				case f.ahead <- struct{}{}:
				case <-ctx.Done():
					return
				}
				f.mu.Lock()
				for next < len(plan) && f.slots[plan[next]].dropped {
					next++ // its case ended before its turn: start nothing
				}
				if next == len(plan) {
					f.mu.Unlock()
					<-f.ahead
					return
				}
				i := plan[next]
				next++
				s := f.slots[i]
				s.started = true
				f.mu.Unlock()
				p, err := start(ctx, i)
				s.result <- startedFake{p, err}
			}
		}()
	}
	return f
}

// take returns the fake started for case i, waiting until it is ready (or
// failed to start). A case the pool did not plan for gets a fake started
// now. ctx is the case's: an interrupted run stops waiting.
func (f *freshPool) take(ctx context.Context, i int) (*Process, error) {
	s, ok := f.slots[i]
	f.mu.Lock()
	if !ok || s.taken || s.dropped {
		f.mu.Unlock()
		return f.start(ctx, i)
	}
	s.taken = true
	f.mu.Unlock()
	select {
	case r := <-s.result:
		f.received(s)
		return r.p, r.err
	case <-ctx.Done(): // the fake, if it was started, is stopped by close
		return nil, &outcome.Error{Reason: outcome.EInterrupted, Message: "interrupted before the case's fake was ready", Err: ctx.Err()}
	}
}

// received records that the outcome of s was read: its place ahead is free.
func (f *freshPool) received(s *slot) {
	f.mu.Lock()
	s.received = true
	f.mu.Unlock()
	<-f.ahead
}

// drop gives up the fake of case i if the case did not take it (it ended
// before it needed one): a fake started for it is stopped, one not started
// yet never will be.
func (f *freshPool) drop(i int) {
	s, ok := f.slots[i]
	if !ok {
		return
	}
	f.mu.Lock()
	if s.taken || s.dropped {
		f.mu.Unlock()
		return
	}
	s.dropped = true
	started := s.started
	f.mu.Unlock()
	if started {
		r := <-s.result
		f.received(s)
		if r.p != nil {
			r.p.Stop()
		}
	}
}

// close stops every fake that no case took, waiting for the starts still
// in progress to end first (they end soon: their context is cancelled).
func (f *freshPool) close() {
	f.cancel()
	f.wg.Wait() // every start begun has its outcome in its slot
	f.mu.Lock()
	var left []*Process
	for _, s := range f.slots {
		if s.started && !s.received {
			s.received = true
			if r := <-s.result; r.p != nil {
				left = append(left, r.p)
			}
		}
	}
	f.mu.Unlock()
	for _, p := range left {
		p.Stop()
	}
}
