package proxy

import (
	"net/http"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cassette-dev/cassette/cassettes"
)

// The ready form of a replayed response: what serveReplay writes for an
// interaction whose response depends on nothing of the request (not a
// HEAD, no trailers, no upgrade, not paced), built once, from the same
// cannedResponse every other response is built from, on the first serve
// of the interaction and kept for its next ones: the header map as
// net/http writes it (keys as recorded, no canonicalization on the way),
// the status and the body's stored bytes. Per request that leaves the
// header map's entries copied into the writer's and one Write, as a plain
// net/http handler's; the clone of the recorded headers, the response, its
// body reader and the copy through io.Copy are gone. Only interactions
// actually served get one, at most readyMax of them: memory in proportion
// to what a suite replays, nothing at start-up.

// readyMax bounds the interactions kept in ready form; past it, a
// response is built for each request as before.
const readyMax = 1 << 14

// readyResponse is a recorded response ready to be written.
type readyResponse struct {
	code int
	// header is shared by every request that writes it: net/http only
	// reads the handler's header map, and clones it when the header is
	// written (HTTP/1.1 and HTTP/2 alike), and its slices are full
	// (http.Header.Clone's and Set's), so an Add copies rather than
	// writing into them.
	header http.Header
	body   string
}

// readyResponses are the ready forms built so far, by interaction.
type readyResponses struct {
	m sync.Map // *cassettes.Interaction → *readyResponse
	n atomic.Int32
}

// readyFor is the ready form of it's response to req, built on its first
// serve; nil when the response must be built for this request (a HEAD,
// trailers, an upgrade, pacing) or the bound is reached.
func (p *Proxy) readyFor(req *http.Request, it *cassettes.Interaction) *readyResponse {
	r := &it.Response
	if p.opts.SimulateLatency || req.Method == http.MethodHead || r.Code == http.StatusSwitchingProtocols || len(r.Trailer) > 0 {
		return nil
	}
	if v, ok := p.readies.m.Load(it); ok {
		return v.(*readyResponse)
	}
	if p.readies.n.Load() >= readyMax {
		return nil
	}
	resp := cannedResponse(req, it) // the one place that says what a replayed response is
	rr := &readyResponse{code: resp.StatusCode, header: resp.Header, body: string(r.Body)}
	if v, loaded := p.readies.m.LoadOrStore(it, rr); loaded {
		return v.(*readyResponse)
	}
	p.readies.n.Add(1)
	return rr
}

// write writes the response to w: its headers, then its body in one Write
// from the stored bytes (as storedBody's WriteTo: the writer only reads
// them).
func (rr *readyResponse) write(w http.ResponseWriter) {
	h := w.Header()
	for k, vs := range rr.header {
		h[k] = vs
	}
	w.WriteHeader(rr.code)
	if len(rr.body) > 0 {
		_, _ = w.Write(unsafe.Slice(unsafe.StringData(rr.body), len(rr.body)))
	}
}
