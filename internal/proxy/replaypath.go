package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/elazarl/goproxy"
)

// Replay: a request answered from the cassettes (the recorded response,
// at its pace when asked; in replay-with-new-episodes mode, one they do
// not hold goes on to be recorded), a miss answered with a 599 that
// explains it, and the reverse door's direct write of a replayed response.
//
// Which interaction answers is package match's: the hot path is
// matching.Index.LookupParsed, which finds a bodiless request seen before
// in a memo by its method and parsed URL, looks a request up as it came,
// and redacts (the index was given p.redact as its Prepare) and looks up
// again only one that matches nothing that way, so a miss is explained
// from the redacted request and never shows a credential. A response that
// depends on nothing of the request is written from its ready form
// (ready.go).

// replay answers a request from the cassettes: the recorded response
// (after its recorded duration, and a stream at its pace, when
// SimulateLatency is set); in replay-with-new-episodes mode a request they
// do not hold goes on to be recorded (seq is its arrival order); otherwise
// it gets a 599 whose body explains the miss.
func (p *Proxy) replay(req *http.Request, ctx *goproxy.ProxyCtx, seq int64) (*http.Request, *http.Response) {
	body, err := p.readBoundedBody(req)
	if err != nil {
		return req, p.bodyError(req, err)
	}
	it, miss := p.replayLookup(req, body)
	if it != nil {
		return req, p.recordedResponse(req, it)
	}
	if p.mode == ModeReplayWithNewEpisodes {
		req.Body = io.NopCloser(bytes.NewReader(body))
		ctx.RoundTripper = p.recordTrip(seq)
		return req, nil
	}
	return req, p.missed(req, miss)
}

// recordedResponse is the response of it, the interaction that answers
// req: a WebSocket session played, a response at its pace when
// SimulateLatency is set, the recorded response otherwise.
func (p *Proxy) recordedResponse(req *http.Request, it *cassettes.Interaction) *http.Response {
	p.logReplay(it)
	if it.Response.Code == http.StatusSwitchingProtocols && isWebSocket(req) {
		return p.replayWebSocket(req, it) // wsreplay.go
	}
	if p.opts.SimulateLatency {
		// A stream recorded without event times gets them (spread.go),
		// then goes event by event (pace.go).
		return p.pacedResponse(req, p.withEventTimes(it))
	}
	return cannedResponse(req, it)
}

// missed keeps a miss (Misses), logs its explanation and answers it: 599,
// the explanation as the body.
func (p *Proxy) missed(req *http.Request, miss *matching.Miss) *http.Response {
	p.mu.Lock()
	p.misses = append(p.misses, miss)
	p.mu.Unlock()
	text := miss.Text()
	p.logf("%s", strings.TrimSuffix(text, "\n"))
	resp := p.synthetic(req, MissStatus, text)
	resp.Header.Set(MissHeader, "replay")
	// The official SDKs (Anthropic's, OpenAI's, Stainless-made ones) retry
	// a 5xx with back-off unless this says not to: a miss is final, and one
	// miss must not become three.
	resp.Header.Set(ShouldRetryHeader, "false")
	return resp
}

// replayLookup returns the recorded interaction that answers req, or the
// miss that explains (redacted) why none does.
func (p *Proxy) replayLookup(req *http.Request, body []byte) (*cassettes.Interaction, *matching.Miss) {
	// The credential headers of every request are learned, hit or miss, so
	// a later miss that quotes one of their values elsewhere is scrubbed.
	p.red.LearnHeaders(req.Header)
	return p.idx.LookupParsed(matching.Request{Method: req.Method, Header: req.Header, Body: body}, req.URL)
}

// savedRedacted reports whether a cassette's recorded requests are
// redacted already: a file cassette wrote (it carries `cassette:`, and is
// no plain go-vcr file) was redacted before it was saved, Save refuses one
// in which a credential is found, and Load scans it again. Its requests are
// indexed as they are; a plain go-vcr cassette's, or one built in memory,
// are redacted once more where the index is built (a tenth of the start-up
// of a proxy holding 100,000 interactions).
func savedRedacted(c *cassettes.Cassette) bool { return c.Cassette >= 1 && !c.Plain }

// replayLogLines is how many replays are logged one by one; after them,
// only the 16th, 32nd, 64th… are (a line per request behind a lock cost a
// tenth of the proxy's time at 600-byte bodies). The count is exact: Run
// prints it when the proxy stops, and Replayed returns it.
const replayLogLines = 10

// logReplay counts a replayed request and logs the first ones.
func (p *Proxy) logReplay(it *cassettes.Interaction) {
	n := p.replayed.Add(1)
	if p.opts.Log == nil || (n > replayLogLines && n&(n-1) != 0) {
		return
	}
	u := p.red.String(shownURL(it.Request.URL))
	switch {
	case n < replayLogLines:
		p.logf("replay %s %s → %d", it.Request.Method, u, it.Response.Code)
	case n == replayLogLines:
		p.logf("replay %s %s → %d (%d replayed; from here one line per power of two, the total when the proxy stops)", it.Request.Method, u, it.Response.Code, n)
	default:
		p.logf("replay %s %s → %d (%d replayed)", it.Request.Method, u, it.Response.Code, n)
	}
}

// Replayed is the number of requests served from the cassettes so far.
func (p *Proxy) Replayed() int64 { return p.replayed.Load() }

// serveReplay answers a request of a replaying proxy that goproxy does
// not see (the reverse door, the forward proxy's front door and
// absolute-URL requests, the proxy's own tunnels) directly, as goproxy
// would after the same onRequest: the response's headers, its announced
// trailers, its body written whole from the stored bytes, the trailers'
// values. goproxy's own work per request (a context, its logging, the
// checks of a response that is forwarded) was a third of the handler's
// time at 600-byte bodies. A response whose writing depends on nothing of
// the request is written from its ready form (ready.go). A stream
// replayed at its pace (SimulateLatency) is written event by event to a
// flushing writer (replayWriter).
func (p *Proxy) serveReplay(w http.ResponseWriter, r *http.Request) {
	p.seq.Add(1) // arrival order, as onRequest counts it: nothing records here
	r.RemoteAddr = ""
	r = atTunnelTarget(r, nil) // the tunnels the proxy serves itself (tunnel.go)
	var resp *http.Response
	body, err := p.readBoundedBody(r)
	if err != nil {
		resp = p.bodyError(r, err)
	} else if it, miss := p.replayLookup(r, body); it == nil {
		resp = p.missed(r, miss)
	} else if rr := p.readyFor(r, it); rr != nil {
		p.logReplay(it)
		rr.write(w)
		return
	} else {
		resp = p.recordedResponse(r, it)
	}
	if serveUpgrade(w, resp) { // a WebSocket session (wsreplay.go)
		return
	}
	writeResponse(w, resp)
}

// writeResponse writes resp as the answer of w: its headers, its
// announced trailers, its body, the trailers' values.
func writeResponse(w http.ResponseWriter, resp *http.Response) {
	defer resp.Body.Close()
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	if len(resp.Trailer) > 0 {
		keys := make([]string, 0, len(resp.Trailer))
		for k := range resp.Trailer {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		h.Set("Trailer", strings.Join(keys, ", "))
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
	for k, vs := range resp.Trailer {
		h[k] = vs
	}
}

// cannedResponse serves a recorded response.
func cannedResponse(req *http.Request, it *cassettes.Interaction) *http.Response {
	r := it.Response
	// The body is served from the stored string, never copied: a reader
	// over it costs the same at 600 bytes and at 64 KiB.
	body := string(r.Body)
	h := r.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Date") == "" {
		// Go's servers (ours, goproxy's copy of the headers, HTTP/2) add
		// a Date to every response unless the header map holds the key
		// with no value: a replayed response has the headers recorded.
		h["Date"] = nil
	}
	n := int64(len(body))
	if req.Method == http.MethodHead {
		body, n = "", r.ContentLength
		if n <= 0 {
			n, _ = strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		}
	} else if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	status := r.Status
	if status == "" {
		status = fmt.Sprintf("%d %s", r.Code, http.StatusText(r.Code))
	} else if !strings.HasPrefix(status, strconv.Itoa(r.Code)) {
		status = fmt.Sprintf("%d %s", r.Code, status)
	}
	return &http.Response{StatusCode: r.Code, Status: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Trailer: r.Trailer.Clone(), Body: newStoredBody(body), ContentLength: n}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
