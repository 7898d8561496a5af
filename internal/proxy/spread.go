package proxy

import (
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// Streams recorded without event times. A stream cassette records itself
// notes when each event arrived (event_times); a go-vcr file notes only
// `duration`, which go-vcr measures up to the response's headers (its
// RoundTrip returns there). Served as it is, such a stream came whole
// after that duration: first and last event at the same moment. Replay
// with latency spreads its events evenly over the recorded duration
// instead, the headers with the first, so that a client rendering tokens
// sees them arrive one by one and the stream ends when the recording says
// the response took. It is an approximation (the real pace is not in the
// file), and the proxy says so in its log.

// spreadEvents returns r with event times for its stream when it has none:
// the i-th of n events at duration·i/n (i from 1), and the headers at the
// first event's time. It reports how many events it spread; 0 (r as it
// is) when r has event times, no duration, or is not a stream of at least
// two events.
func spreadEvents(r cassettes.Response) (cassettes.Response, int) {
	ends := streamOf(r.Headers.Get("Content-Type"))
	if ends == nil || len(r.EventTimes) > 0 || r.Duration <= 0 {
		return r, 0
	}
	n := 0
	for rest := []byte(r.Body); len(rest) > 0; n++ {
		i := ends.next(rest)
		if i < 0 { // a tail without its end is one more event
			i = len(rest)
		}
		rest = rest[i:]
	}
	if n < 2 {
		return r, 0
	}
	d := time.Duration(r.Duration)
	r.EventTimes = make([]cassettes.Duration, n)
	for i := range n {
		r.EventTimes[i] = cassettes.Duration(d * time.Duration(i+1) / time.Duration(n))
	}
	r.Duration = r.EventTimes[0]
	return r, n
}

// withEventTimes is it, or a copy whose stream has event times spread
// over its duration (spreadEvents), which the log says.
func (p *Proxy) withEventTimes(it *cassettes.Interaction) *cassettes.Interaction {
	r, n := spreadEvents(it.Response)
	if n == 0 {
		return it
	}
	p.logf("pace %s %s: the stream was recorded without event times (a go-vcr file notes only its duration); its %d events are spread evenly over the recorded %s",
		it.Request.Method, shownURL(it.Request.URL), n, time.Duration(it.Response.Duration))
	cp := *it
	cp.Response = r
	return &cp
}
