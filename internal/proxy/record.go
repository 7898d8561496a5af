package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/elazarl/goproxy"
)

// Recording: the round trip to the real upstream, capture while the body
// streams to the client, redaction before anything is kept, and the
// ordered set of captured interactions that Flush and Interactions hand out.

type recorded struct {
	seq int64
	it  cassettes.Interaction
}

func (p *Proxy) passTrip(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
	resp, err := p.trFor(req).RoundTrip(req)
	if err != nil {
		return p.upstreamFailure(req, err), nil
	}
	return resp, nil
}

func (p *Proxy) upstreamFailure(req *http.Request, err error) *http.Response {
	p.settle() // what the interactions before taught is known (storing.go)
	// A query may hold a credential known only by its parameter's name (the
	// recorder learns it from stored interactions; this one is not stored):
	// messages show the URL without its query.
	u := p.red.String(shownURL(req.URL.String()))
	msg := p.red.String(strings.ReplaceAll(err.Error(), req.URL.String(), u))
	f := p.failed(req, err, 0, "")
	p.logf("upstream failed: %s %s: [%s] %s", req.Method, u, f.Reason, msg)
	resp := p.synthetic(req, http.StatusBadGateway,
		fmt.Sprintf("cassette: the upstream did not answer %s %s: [%s] %s: %s\nnext step: check that the service is reachable, then retry\n", req.Method, u, f.Reason, f.Class, msg))
	resp.Header.Set(MissHeader, "upstream")
	return resp
}

// redact is the session's redaction of one interaction (decoding, learning,
// scrubbing, lengths: cassettes.Interaction.Redact). What is stored also
// gets the form go-vcr records (formOf), taken from the redacted request;
// matching does not read it.
func (p *Proxy) redact(it *cassettes.Interaction) { it.Redact(p.red) }

func headOrBodiless(method string, code int) bool {
	return method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified || (code >= 100 && code < 200)
}

func captureRequest(req *http.Request, body []byte) cassettes.Request {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	return cassettes.Request{
		Proto: req.Proto, ProtoMajor: req.ProtoMajor, ProtoMinor: req.ProtoMinor,
		ContentLength: int64(len(body)), TransferEncoding: req.TransferEncoding,
		Host: host, Body: cassettes.Body(body), Headers: req.Header.Clone(),
		URL: req.URL.String(), Method: req.Method,
	}
}

// formOf is the request's form as go-vcr records it (and its default
// matcher compares it): the URL query and a urlencoded body, parsed. It is
// taken from the request once redacted, so that it holds nothing the URL
// and body do not (a decoded query value is another spelling of a secret:
// `a+b` decodes to `a b`).
func formOf(q *cassettes.Request) url.Values { return q.ParsedForm() }

// recordTrip is the per-request round tripper of record mode: it reads the
// request body (to store it), forwards the request, and hands back the
// response with its body wrapped, so the client receives each chunk as the
// upstream sends it while a copy accumulates for the cassette.
func (p *Proxy) recordTrip(seq int64) goproxy.RoundTripper {
	return goproxy.RoundTripperFunc(func(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
		if isWebSocket(req) {
			return p.recordWebSocket(seq, req), nil // websocket.go
		}
		body, err := p.readBoundedBody(req)
		if err != nil {
			return p.bodyError(req, err), nil
		}
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			req.TransferEncoding = nil
		}
		rec := captureRequest(req, body)
		p.begin()
		start := p.now()
		resp, err := p.trFor(req).RoundTrip(req)
		if err != nil {
			p.end()
			return p.upstreamFailure(req, err), nil
		}
		p.failingStatus(req, resp)
		// goproxy rewrites the response after this returns (Proto, framing):
		// snapshot what is recorded now.
		it := cassettes.Interaction{Request: rec, Response: cassettes.Response{
			Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			TransferEncoding: append([]string(nil), resp.TransferEncoding...),
			ContentLength:    resp.ContentLength, Uncompressed: resp.Uncompressed,
			Headers: resp.Header.Clone(), Status: resp.Status, Code: resp.StatusCode,
			Duration: cassettes.Duration(p.now().Sub(start)),
		}}
		clock := p.newEventClock(resp, start) // nil unless a stream (pace.go)
		capture := newCaptureBody(resp.Body, resp.ContentLength)
		capture.clock, capture.fail = clock, func(err error) { p.failed(req, err, 0, "") }
		capture.done = func(b []byte, complete bool) {
			// All the announced bytes, or none due (HEAD, 204, 304), is
			// whole even when the end was not read.
			complete = complete || headOrBodiless(req.Method, it.Response.Code) ||
				(it.Response.ContentLength >= 0 && int64(len(b)) == it.Response.ContentLength)
			if !complete { // a truncated body is never saved as if whole
				p.dropIncomplete(req.Method, rec.URL, it.Response.Code, len(b), it.Response.ContentLength)
				p.end()
				return
			}
			it.Response.Body = cassettes.Body(b)
			if clock != nil {
				it.Response.EventTimes = clock.times
			}
			it.Response.Trailer = resp.Trailer.Clone()
			p.store(seq, it) // after the response: see storing.go
			p.end()
		}
		resp.Body = capture
		return resp, nil
	})
}

// captureBody copies what the client reads into a buffer and reports it
// once, at the end of the body or when it is closed.
type captureBody struct {
	rc    io.ReadCloser
	clock *eventClock // a stream's: when each event ended
	buf   []byte      // what was read so far
	once  sync.Once
	done  func(b []byte, complete bool)
	fail  func(err error) // the upstream failed mid-body
}

// captureChunk is the least room a read into the capture buffer gets.
const captureChunk = 16 << 10

// maxPresize bounds the capture buffer sized from a Content-Length before
// anything is read: a bigger body grows it as it comes.
const maxPresize = 1 << 20

func newCaptureBody(rc io.ReadCloser, length int64) *captureBody {
	c := &captureBody{rc: rc}
	if length > 0 && length <= maxPresize {
		c.buf = make([]byte, 0, int(length)+512) // room for the read that sees the end
	}
	return c
}

func (c *captureBody) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.buf = append(c.buf, b[:n]...)
	c.observe(n)
	c.end(err)
	return n, err
}

// WriteTo is what io.Copy (goproxy's relay of the body) calls: each read
// goes straight into the capture buffer and is written from there, so
// that the body is copied once, and no 32 KiB copy buffer is allocated
// for each response. net/http hands the last bytes over with io.EOF: the
// end (finish, which stores the interaction) is noted once they are
// written, so that the client does not wait for it (through Read, which
// io.Copy called before, it did).
func (c *captureBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if cap(c.buf)-len(c.buf) < 512 {
			c.buf = slices.Grow(c.buf, max(captureChunk, len(c.buf)))
		}
		at := len(c.buf)
		n, err := c.rc.Read(c.buf[at:cap(c.buf)])
		c.buf = c.buf[:at+n]
		c.observe(n)
		if n > 0 {
			m, werr := w.Write(c.buf[at : at+n])
			total += int64(m)
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				c.end(err) // what the upstream said is still noted
				return total, werr
			}
		}
		c.end(err)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// observe notes the events the last n bytes read ended (a stream's clock).
func (c *captureBody) observe(n int) {
	if c.clock != nil {
		c.clock.observe(c.buf[len(c.buf)-n:])
	}
}

// end notes the end of the body, or the upstream failing, that a read
// returned.
func (c *captureBody) end(err error) {
	if err == io.EOF {
		c.finish(true)
	} else if err != nil && c.fail != nil {
		c.fail(err)
	}
}

func (c *captureBody) Close() error {
	err := c.rc.Close()
	c.finish(false)
	return err
}

func (c *captureBody) finish(complete bool) {
	c.once.Do(func() { c.done(c.buf, complete) })
}

// keep redacts one captured interaction and adds it to the recorded ones
// (the work of store, storing.go).
func (p *Proxy) keep(seq int64, it cassettes.Interaction) {
	it.Request.RemoteAddr, it.Request.RequestURI = "", ""
	p.redact(&it)
	it.Request.Form = formOf(&it.Request)
	// Only the origin is logged live: a value in the path may be learned as
	// a credential later in the session (a token first seen in a URL, then
	// as a bearer). Run lists the whole URLs at the end, redacted with
	// everything learned by then.
	if it.WebSocket != nil {
		p.logf("record %s %s → %d (a WebSocket session, %d messages)", it.Request.Method, originOf(it.Request.URL), it.Response.Code, len(it.WebSocket.Messages))
	} else {
		p.logf("record %s %s → %d (%d bytes)", it.Request.Method, originOf(it.Request.URL), it.Response.Code, len(it.Response.Body))
	}
	p.mu.Lock()
	p.recorded = append(p.recorded, recorded{seq, it})
	p.mu.Unlock()
}

func (p *Proxy) begin() {
	p.mu.Lock()
	p.inflight++
	p.mu.Unlock()
}

func (p *Proxy) end() {
	p.mu.Lock()
	p.inflight--
	if p.inflight == 0 {
		for _, w := range p.waiters {
			close(w)
		}
		p.waiters = nil
	}
	p.mu.Unlock()
}

// Flush waits until every interaction being recorded has been stored (its
// response body fully relayed or abandoned by the client), or ctx ends.
func (p *Proxy) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.inflight == 0 {
		p.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	p.waiters = append(p.waiters, w)
	n := p.inflight
	p.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return &outcome.Error{Reason: outcome.ETimeout, Err: ctx.Err(),
			Message:  fmt.Sprintf("%d interaction(s) were still being recorded: let long-running responses finish before stopping the proxy, then record again", n),
			NextStep: outcome.Command("cassette", "proxy", "--help")}
	}
}

// Interactions returns the interactions recorded so far (complete ones),
// redacted, in arrival order, with IDs 0..n-1. In replay-with-new-episodes
// mode these are the new episodes only. Each is redacted again on the way
// out, so that a value learned from a later interaction (a token a login
// response returned, sent by the next request as a bearer) is scrubbed
// from the earlier ones as well.
func (p *Proxy) Interactions() []cassettes.Interaction {
	p.settle()
	p.mu.Lock()
	rs := append([]recorded(nil), p.recorded...)
	p.mu.Unlock()
	sort.Slice(rs, func(i, j int) bool { return rs[i].seq < rs[j].seq })
	out := make([]cassettes.Interaction, len(rs))
	for i, r := range rs {
		it := r.it
		it.Request = it.Request.Clone()
		it.Response.Headers, it.Response.Trailer = it.Response.Headers.Clone(), it.Response.Trailer.Clone()
		it.WebSocket = it.WebSocket.Clone()
		p.redact(&it)
		it.Request.Form = formOf(&it.Request)
		out[i] = it
		out[i].ID = i
	}
	return out
}
