package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

// The replay hot path. A request is first looked up as it came: a recorded
// request is indexed in its redacted form (see newIndex), so when the
// incoming request equals one of those there is nothing to redact, and the
// full redaction (decoding, the adapter's Redact, the secret scan over URL,
// headers and body, the parsed form) is not paid. Only a request that
// matches nothing as it came — one that carries a live token where the
// cassette says [REDACTED], one whose body is compressed, or a real miss —
// is redacted and looked up again; the miss report is built from that
// redacted form, so it never shows a credential.

// replayLookup returns the recorded interaction that answers req, or the
// miss that explains (redacted) why none does.
func (p *Proxy) replayLookup(req *http.Request, body []byte) (*cassettes.Interaction, *Miss) {
	// The credential headers of every request are learned, hit or miss, so
	// a later miss that quotes one of their values elsewhere is scrubbed.
	p.learned.learnHeaders(req.Header)
	if req.Header.Get("Content-Encoding") == "" {
		if it := p.idx.take(req.Method, req.URL.String(), req.Header, body); it != nil {
			return it, nil
		}
	}
	probe := cassettes.Interaction{Request: captureRequest(req, body)}
	p.redact(&probe)
	r := probe.Request
	return p.idx.find(r.Method, r.URL, r.Headers, []byte(r.Body), r.Method+" "+r.URL)
}

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
	u := redact.RedactString(shownURL(it.Request.URL), p.secrets())
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

// take serves the request from the first group whose index holds it
// unused (or replayable), without building any miss; nil when none does.
func (m *matcher) take(method, rawURL string, h http.Header, body []byte) *cassettes.Interaction {
	for _, x := range m.groups {
		v := x.opts.viewWith(x.c, method, rawURL, h, body, x.hnames)
		if it, _ := x.take(v); it != nil {
			return it
		}
	}
	return nil
}

// serveReplay answers an origin-form request (the reverse proxy's, or the
// forward proxy's front door) in replay mode directly, as goproxy would
// after the same onRequest: the response's headers, its announced
// trailers, its body written whole from the stored bytes, the trailers'
// values. goproxy's own work per request (a context, its logging, the
// checks of a response that is forwarded) was a third of the handler's
// time at 600-byte bodies. Streams replayed at their pace (SimulateLatency)
// still go through goproxy.
func (p *Proxy) serveReplay(w http.ResponseWriter, r *http.Request) {
	_, resp := p.onRequest(r, nil) // replay never reads the goproxy context
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
