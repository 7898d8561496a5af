package proxy

import (
	"context"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// Streams: a response whose Content-Type says it is a stream of events —
// server-sent events (text/event-stream, an event ends at a blank line) or
// newline-delimited JSON (application/x-ndjson, application/jsonl, an event
// ends at a newline) — is recorded with the time each event arrived
// (Response.EventTimes), and replayed with latency event by event, each one
// written and flushed at its recorded time, so that a client that renders
// tokens as they arrive sees them arrive as they did.

// eventEnds finds where the events of a stream end.
type eventEnds struct {
	sse     bool // else NDJSON
	lineLen int  // bytes of the current line, CR excluded
}

// streamOf returns the event scanner of a Content-Type; nil when the
// response is not a stream.
func streamOf(contentType string) *eventEnds {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "text/event-stream":
		return &eventEnds{sse: true}
	case "application/x-ndjson", "application/jsonl", "application/x-jsonlines", "application/stream+json":
		return &eventEnds{}
	}
	return nil
}

// next returns the offset just past the first event that ends in b, or -1.
func (s *eventEnds) next(b []byte) int {
	for i, c := range b {
		switch c {
		case '\n':
			end := !s.sse || s.lineLen == 0
			s.lineLen = 0
			if end {
				return i + 1
			}
		case '\r':
		default:
			s.lineLen++
		}
	}
	return -1
}

// eventClock notes, as a recorded stream is relayed, when each event ends.
type eventClock struct {
	ends  *eventEnds
	start time.Time
	now   func() time.Time
	times []cassettes.Duration
}

// observe is called with each chunk relayed to the client.
func (c *eventClock) observe(b []byte) {
	for len(b) > 0 {
		i := c.ends.next(b)
		if i < 0 {
			return
		}
		c.times = append(c.times, cassettes.Duration(c.now().Sub(c.start)))
		b = b[i:]
	}
}

// newEventClock returns the clock of a recorded response, or nil when the
// response is not a stream.
func (p *Proxy) newEventClock(resp *http.Response, start time.Time) *eventClock {
	ends := streamOf(resp.Header.Get("Content-Type"))
	if ends == nil {
		return nil
	}
	return &eventClock{ends: ends, start: start, now: p.now}
}

// pacedResponse is a replayed response at its recorded pace: its headers
// at the recorded duration after start (when the request was matched),
// and a stream's events each at its recorded time after start. Each wait
// is for a deadline counted from start, not a gap after the previous
// event: the time spent writing and flushing each event does not add up
// (50 events over 998 ms ended 5.6% late with gaps summed).
func (p *Proxy) pacedResponse(req *http.Request, it *cassettes.Interaction) *http.Response {
	start := p.now()
	if err := p.sleepUntil(req.Context(), start.Add(time.Duration(it.Response.Duration))); err != nil {
		return p.synthetic(req, MissStatus, "cassette: request cancelled during simulated latency\n")
	}
	resp := cannedResponse(req, it)
	p.paced(req.Context(), resp, it.Response, start)
	return resp
}

// sleepUntil waits until the clock reads t (at once when it is past).
func (p *Proxy) sleepUntil(ctx context.Context, t time.Time) error {
	if d := t.Sub(p.now()); d > 0 {
		return p.sleep(ctx, d)
	}
	return nil
}

// paced makes a replayed stream keep its recorded timing: each event is
// read (hence written and flushed) only once its recorded time after
// start has come, and never before the headers' (already waited for).
func (p *Proxy) paced(ctx context.Context, resp *http.Response, r cassettes.Response, start time.Time) {
	ends := streamOf(r.Headers.Get("Content-Type"))
	if ends == nil || len(r.EventTimes) == 0 || resp.Body == nil {
		return
	}
	due := make([]time.Time, len(r.EventTimes))
	at := time.Duration(r.Duration)
	for i, t := range r.EventTimes {
		at = max(at, time.Duration(t))
		due[i] = start.Add(at)
	}
	resp.Body = &pacedBody{ctx: ctx, rest: []byte(r.Body), ends: ends, due: due, until: p.sleepUntil}
}

// pacedBody hands out a recorded stream one event per Read, each once its
// time is due.
type pacedBody struct {
	ctx   context.Context
	rest  []byte // what is left to serve
	cur   []byte // the event being served
	ends  *eventEnds
	due   []time.Time // when each event is due, in order
	until func(context.Context, time.Time) error
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if len(b.cur) == 0 {
		if len(b.rest) == 0 {
			return 0, io.EOF
		}
		n := b.ends.next(b.rest)
		if n < 0 || len(b.due) == 0 { // the tail, or more events than times: at once
			n = len(b.rest)
		}
		if len(b.due) > 0 {
			if err := b.until(b.ctx, b.due[0]); err != nil {
				return 0, err
			}
			b.due = b.due[1:]
		}
		b.cur, b.rest = b.rest[:n], b.rest[n:]
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

func (b *pacedBody) Close() error { return nil }
