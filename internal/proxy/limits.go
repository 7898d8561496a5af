package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// What the proxy bounds, so that one client cannot hold it (or the record
// it writes) hostage:
//
//   - a request body it buffers (to record or to match it) is at most
//     Options.MaxRequestBody bytes (DefaultMaxRequestBody); a bigger one is
//     answered 413 with the limit and the flag that raises it, and nothing
//     is forwarded or recorded;
//   - the server's timeouts: request headers within ReadHeaderTimeout, a
//     request body within Options.BodyReadTimeout of its headers (a deadline set
//     only while the body is read, so long responses and streams are not
//     cut), and an idle keep-alive connection is closed after IdleTimeout;
//   - a response the client stopped reading before its end is not recorded
//     as if it were whole: it is left out of the cassette and reported
//     (Incomplete, and a line in the log).
const (
	// DefaultMaxRequestBody is the default bound of a buffered request body.
	DefaultMaxRequestBody = 64 << 20
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout = 30 * time.Second
	// DefaultBodyReadTimeout bounds the reading of a request's body.
	DefaultBodyReadTimeout = 2 * time.Minute
	// IdleTimeout closes a keep-alive connection with no request.
	IdleTimeout = 2 * time.Minute
)

// errBodyTooLarge is the error readBody returns past the bound.
var errBodyTooLarge = errors.New("request body too large")

func (p *Proxy) bodyReadTimeout() time.Duration {
	if p.opts.BodyReadTimeout > 0 {
		return p.opts.BodyReadTimeout
	}
	return DefaultBodyReadTimeout
}

func (p *Proxy) maxRequestBody() int64 {
	if p.opts.MaxRequestBody > 0 {
		return p.opts.MaxRequestBody
	}
	return DefaultMaxRequestBody
}

// readBoundedBody reads a request body up to the proxy's bound.
func (p *Proxy) readBoundedBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	limit := p.maxRequestBody()
	if req.ContentLength > limit {
		req.Body.Close()
		return nil, errBodyTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
	req.Body.Close()
	if err == nil && int64(len(b)) > limit {
		return nil, errBodyTooLarge
	}
	return b, err
}

// bodyError answers a request whose body could not be read: 413 past the
// bound, 400 otherwise. Nothing is forwarded or recorded.
func (p *Proxy) bodyError(req *http.Request, err error) *http.Response {
	p.settle() // what the interactions before taught is known (storing.go)
	u := p.red.String(shownURL(req.URL.String()))
	if errors.Is(err, errBodyTooLarge) {
		limit := p.maxRequestBody()
		p.logf("refused %s %s: the request body is larger than %d bytes; not forwarded, not recorded", req.Method, u, limit)
		return p.synthetic(req, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"cassette: the request body of %s %s is larger than %d bytes, the most the proxy buffers to record or match it; nothing was forwarded or recorded (start the proxy again with a larger --max-request-body, e.g. %d)\n"+
				"next step: %s\n", req.Method, u, limit, 4*limit, outcome.Command("cassette", "proxy", "--help")))
	}
	p.logf("cannot read the request body of %s %s: %v", req.Method, u, err)
	return p.synthetic(req, http.StatusBadRequest, "cassette: cannot read the request body: "+
		p.red.String(err.Error())+"\n")
}

// bodyDeadline sets a read deadline on the client's connection while the
// request body is read (http.Server's ReadTimeout would also cut the
// responses that stream for longer) and clears it at the end of the body.
func bodyDeadline(w http.ResponseWriter, r *http.Request, d time.Duration) {
	if r.Method == http.MethodConnect || r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return // not supported by this writer (HTTP/2): the size bound still holds
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody clears the body's read deadline once the body is read
// whole.
type deadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (d *deadlineBody) Read(b []byte) (int, error) {
	n, err := d.ReadCloser.Read(b)
	if err == io.EOF && !d.done { // after a timeout the deadline stays: the server gives up on the rest
		d.done = true
		d.clear()
	}
	return n, err
}

// Incomplete is a response that did not reach its end while it was being
// recorded (the client went away, or the upstream cut it short): it is not
// in the recorded interactions.
type Incomplete struct {
	Method string
	URL    string // without its query, redacted
	Code   int
	Bytes  int   // relayed before the end
	Length int64 // the Content-Length announced, -1 when unknown
}

func (i Incomplete) String() string {
	of := ""
	if i.Length >= 0 {
		of = " of " + strconv.FormatInt(i.Length, 10)
	}
	return fmt.Sprintf("%s %s → %d: %d%s bytes relayed", i.Method, i.URL, i.Code, i.Bytes, of)
}

// dropIncomplete reports a response cut short and keeps it out of the
// recording.
func (p *Proxy) dropIncomplete(method, rawURL string, code, n int, length int64) {
	p.settle() // what the interactions before taught is known (storing.go)
	in := Incomplete{Method: method, URL: p.red.String(shownURL(rawURL)), Code: code, Bytes: n, Length: length}
	p.mu.Lock()
	p.incomplete = append(p.incomplete, in)
	p.mu.Unlock()
	p.logf("not recorded: the response did not reach its end (the client went away, or the upstream cut it short): %s; record it again", in)
}

// Incomplete returns the responses left out of the recording because they
// did not reach their end, in order.
func (p *Proxy) Incomplete() []Incomplete {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Incomplete(nil), p.incomplete...)
}

// loadGCPercent is the GC target while a proxy loads and indexes its
// cassettes: the Go default (100) let the heap grow to twice what a large
// cassette set keeps (100,000 interactions: ~240 MB kept, ~400 MB
// resident); at 25 the peak was ~60 MB lower for 3.5% more start-up time
// (interleaved medians of 5).
const loadGCPercent = 25

// servingHeapGrowth is the least the heap of a proxy that serves may grow
// by between two collections. Go's own floor is a 4 MB heap in all: a
// replay proxy whose cassettes, redaction rules and CA leave a megabyte or
// more live was collected every 3 MB or less allocated (a plain server
// with nothing live, every 4 MB), and each collection marks what is live
// and the binary's globals: a tenth of a replayed 604-byte request's
// instructions against the plain server's 6%. A live heap of L gets a GC
// target of at least 100 × servingHeapGrowth / L percent (for 1 MB live:
// a 17 MB heap, 16 MB more memory at most); one of 16 MB and more keeps
// Go's default, and a GOGC of the user's is kept.
const servingHeapGrowth = 16 << 20

// LowGC sets the GC target to loadGCPercent (unless GOGC asks for less)
// and returns what ends it, once: for the time a proxy loads and indexes
// its cassettes. Then the target is the one before, raised for a small
// live heap (servingGCPercent).
func LowGC() func() {
	prev := debug.SetGCPercent(loadGCPercent)
	if prev < loadGCPercent { // GOGC=off or lower: the user's
		debug.SetGCPercent(prev)
	}
	_, userGOGC := os.LookupEnv("GOGC")
	return sync.OnceFunc(func() {
		if userGOGC {
			debug.SetGCPercent(prev)
			return
		}
		debug.SetGCPercent(servingGCPercent(prev, liveHeap()))
	})
}

// servingGCPercent is the GC target of a serving proxy whose live heap is
// live bytes, from prev, Go's: raised so that the heap may grow by
// servingHeapGrowth between collections (a live heap under 1 MB counts as
// 1 MB).
func servingGCPercent(prev int, live uint64) int {
	live = max(live, 1<<20)
	if p := int(servingHeapGrowth * 100 / live); p > prev {
		return p
	}
	return prev
}

// liveHeap is the heap the last collection left live, in bytes (0 when
// the runtime does not say).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
