package proxy

import (
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
)

// Storing: what is done with a captured interaction once its response has
// reached the client (its redaction, which learns the values it hides, its
// form, its log line; keep) runs after the response, on the proxy's store
// worker, in the order the interactions ended. The client's next request
// on the connection waited for it before: a sequential client paid for the
// redaction of each response in the latency of the next one.
//
// Nothing is lost or shown unredacted for it: each interaction stored
// counts as in flight until it is kept, so Flush (and Shutdown, which the
// SIGINT/SIGTERM of `cassette proxy` runs before the save) waits for it;
// Interactions waits for what is queued (settle); and every message that
// redacts a request's URL or error with what was learned (failed,
// failedWith, upstreamFailure, bodyError, dropIncomplete) settles first, so that a value a response
// taught is known before the next failure is written. The interactions
// wait in memory, as their captured bodies did; nothing touches disk
// before the save, which redacts every one again.
type storeQueue struct {
	mu      sync.Mutex
	work    *sync.Cond // signalled when pending grows or the queue stops
	kept    *sync.Cond // signalled when done grows, for settle
	pending []recorded
	started bool  // the worker runs (from the first store until stop)
	stopped bool  // Close: the worker ends once pending is empty
	queued  int64 // interactions stored so far
	done    int64 // of them, kept

	// Tests' hooks (storing_test.go), set before the proxy starts: called
	// before each keep, and when settle is about to wait.
	beforeKeep, waiting func()
}

// store queues one captured interaction, to be kept after its response
// by the proxy's one worker (started by the first store; after Close, the
// interaction is kept at once).
func (p *Proxy) store(seq int64, it cassettes.Interaction) {
	p.begin() // ended once it is kept
	q := &p.stores
	q.mu.Lock()
	q.queued++
	if q.stopped {
		q.mu.Unlock()
		p.kept(seq, it)
		return
	}
	if q.work == nil {
		q.work, q.kept = sync.NewCond(&q.mu), sync.NewCond(&q.mu)
	}
	q.pending = append(q.pending, recorded{seq, it})
	start := !q.started
	q.started = true
	q.mu.Unlock()
	if start {
		go p.storeWorker()
	} else {
		q.work.Signal()
	}
}

// storeWorker keeps the queued interactions one at a time, in order, until
// the queue stops and nothing is left. It is one goroutine for the
// proxy's life, so that its stack, grown by the redaction, is grown once.
func (p *Proxy) storeWorker() {
	q := &p.stores
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.pending) == 0 {
			if q.stopped {
				return
			}
			q.work.Wait()
		}
		r := q.pending[0]
		q.pending[0] = recorded{}
		q.pending = q.pending[1:]
		if len(q.pending) == 0 {
			q.pending = q.pending[:0:0] // let the backing array go
		}
		q.mu.Unlock()
		p.kept(r.seq, r.it)
		q.mu.Lock()
	}
}

// kept keeps one interaction and counts it done.
func (p *Proxy) kept(seq int64, it cassettes.Interaction) {
	q := &p.stores
	if q.beforeKeep != nil {
		q.beforeKeep()
	}
	p.keep(seq, it)
	p.end()
	q.mu.Lock()
	q.done++
	if q.kept != nil {
		q.kept.Broadcast()
	}
	q.mu.Unlock()
}

// stopStores ends the worker once it has kept what is queued (Close).
func (p *Proxy) stopStores() {
	q := &p.stores
	q.mu.Lock()
	q.stopped = true
	if q.work != nil {
		q.work.Broadcast()
	}
	q.mu.Unlock()
}

// settle waits until every interaction stored before it was called is
// kept (not for those stored meanwhile: a steady stream of them does not
// hold it).
func (p *Proxy) settle() {
	q := &p.stores
	q.mu.Lock()
	defer q.mu.Unlock()
	for target := q.queued; q.done < target; {
		if q.kept == nil {
			q.kept = sync.NewCond(&q.mu)
		}
		if q.waiting != nil {
			q.waiting()
		}
		q.kept.Wait()
	}
}
