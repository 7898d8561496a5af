package coverage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// Observer writes the calls made to one adapter's fake.
type Observer struct {
	Adapter string
	Kind    cfgschema.Kind
	// Rules give the informative shape written with each call (nil: none).
	Rules *Rules
	// Writer is where the calls go.
	Writer *Writer
	// Redactor is the session's redaction (the project's credential names,
	// the declared values, what it learned); nil is the built-in names.
	Redactor *redact.Redactor
	// Test names the test of a call that does not name its own.
	Test string
}

// Observe redacts and writes one call made by test ("" for o.Test).
func (o *Observer) Observe(c Call, test string) error {
	red := o.Redactor // not set here: Observe runs on many handler goroutines
	if red == nil {
		red = redact.New(nil, nil)
	}
	c = Redact(c, red)
	if test == "" {
		test = o.Test
	}
	ob := Observation{Adapter: o.Adapter, Kind: o.Kind, Call: c, Test: red.String(test)}
	if o.Rules != nil {
		ob.Shape = o.Rules.Of(ob)
	}
	return o.Writer.Write(ob)
}

// Handler returns next wrapped so that every request it serves is
// observed: method, path and query, Content-Type and body (up to MaxBody;
// a larger body by its size only). The Cassette-Test header names the
// test and is removed before next sees the request. A failure to write an
// observation is answered 502, so that a test never passes with its call
// unobserved.
func (o *Observer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		test := r.Header.Get(HeaderTest)
		r.Header.Del(HeaderTest)
		c := Call{Method: r.Method, URL: r.URL.RequestURI(), ContentType: r.Header.Get("Content-Type")}
		var counted *countingReader
		if r.Body != nil && r.Body != http.NoBody {
			head, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
			if err != nil {
				http.Error(w, "cassette observe: reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			if len(head) <= MaxBody && utf8.Valid(head) {
				c.Body = string(head)
				r.Body = io.NopCloser(bytes.NewReader(head))
			} else {
				counted = &countingReader{r: io.MultiReader(bytes.NewReader(head), r.Body)}
				r.Body = io.NopCloser(counted)
			}
		}
		if counted == nil {
			if err := o.Observe(c, test); err != nil {
				http.Error(w, "cassette observe: the call was not observed: "+err.Error(), http.StatusBadGateway)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
		_, _ = io.Copy(io.Discard, counted) // the size of what next did not read
		c.BodyBytes = counted.n
		_ = o.Observe(c, test) // the response is gone: a failure shows as a missing call
	})
}

// Proxy is an observing reverse proxy in front of the fake at target (an
// http:// base URL): each request is observed, then forwarded; streams
// (SSE, and any body of unknown length: NDJSON, chunked) are passed on as
// the fake writes them (httputil.ReverseProxy flushes those after each
// write), a body of known length in one write with its headers (a flush
// after every write armed a timer that sent the headers alone first: two
// writes and a goroutine a call). `cassette observe` and `cassette proxy
// --mode observe` serve it.
func (o *Observer) Proxy(target *url.URL) http.Handler {
	return o.Handler(&httputil.ReverseProxy{
		Rewrite:    func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = r.In.Host },
		BufferPool: copyBuffers,
		Transport:  toFakes,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, fmt.Sprintf("cassette observe: the fake of adapter %s did not answer: %v", o.Adapter, err), http.StatusBadGateway)
		},
	})
}

// toFakes is the observing proxies' client of the fakes: it sends a
// request as the test sent it (http.DefaultTransport asks for gzip when
// the test did not, and unzips the answer: the fake saw a header the test
// never sent, and both sides paid for the compression), keeps a
// connection for each of a parallel suite's callers (DefaultTransport
// keeps 2 a host and dials again past them), and goes straight to the
// fake whatever HTTP_PROXY says.
var toFakes = &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	DisableCompression:  true,
	MaxIdleConnsPerHost: 64,
	IdleConnTimeout:     90 * time.Second,
}

// copyBuffers are the proxies' copy buffers (ReverseProxy's own is 32 KiB
// allocated per request).
var copyBuffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(v []byte) { b.p.Put(&v) }

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// Shim is what a CLI shim runs: the fake of an adapter, in place of the
// real command, observing each call. `cassette observe` writes it (Encode)
// for the shims it puts on PATH: the fields cmd/cassette-shim reads
// (shimcall.Spec) and the adapter's coverage settings (for the shape).
type Shim struct {
	shimcall.Spec
	Coverage cfgschema.Coverage
}

// ShimIO is the shim's process: its arguments after the command, its
// streams and environment, and who called it.
type ShimIO struct {
	Args           []string
	Stdin          *os.File
	Stdout, Stderr io.Writer
	Env            []string
	// Caller names the process that ran the shim, for a call no test
	// named (see CallerName).
	Caller string
}

// Run runs the fake with the call's arguments, streams and environment,
// observes the call once the fake has exited, and returns the fake's exit
// code (127 when it cannot be started). Standard input counts as given
// when it is a pipe or a file whose first bytes reached the shim before
// the fake exited; it is passed through as it comes (a fake may read it
// line by line while it answers). It is `cassette observe --shim`, what
// cmd/cassette-shim runs when no observe run answers on its socket.
func (s *Shim) Run(ctx context.Context, sio ShimIO) int {
	if msg := s.Loop(sio.Env); msg != "" {
		fmt.Fprint(sio.Stderr, msg)
		return 127
	}
	child := shimcall.Child{Stdout: sio.Stdout, Stderr: sio.Stderr, Stop: ctx.Done()}
	if sio.Stdin != nil && shimcall.IsPipeOrFile(sio.Stdin) {
		child.Stdin = sio.Stdin
	}
	code, in, err := s.RunChild(sio.Args, sio.Env, child)
	if err != nil {
		fmt.Fprintf(sio.Stderr, "cassette observe: the fake of adapter %s did not start: %v\n", s.Adapter, err)
	}
	req := s.Request(sio.Args, sio.Env, func() string { return sio.Caller })
	req.Stdin, req.Input = in.Given()
	rules, _ := NewRules(&cfgschema.Adapter{Kind: cfgschema.KindCLI, Coverage: s.Coverage})
	if err := s.Record(req, rules, nil); err != nil {
		fmt.Fprintf(sio.Stderr, "cassette observe: the call was not observed: %v\n", err)
	}
	return code
}

// Record redacts and writes one call the shim ran, as it sent it (its
// environment holds the adapter's credentials and CASSETTE_TEST, no
// more): the values of the credential variables, the values under
// credential names and the known key formats are redacted before the
// line is written. rules give the call's shape (nil: none); w is the
// shim's observation file (nil: opened here for this call).
func (s *Shim) Record(req shimcall.Request, rules *Rules, w *Writer) error {
	lookup := func(name string) (string, bool) { return shimcall.Lookup(req.Env, name) }
	if w == nil {
		var err error
		if w, err = s.OpenWriter(); err != nil {
			return err
		}
		defer w.Close()
	}
	o := &Observer{Adapter: s.Adapter, Kind: cfgschema.KindCLI, Rules: rules, Writer: w,
		Redactor: redact.New(redact.NewRules(s.Redact), redact.FromEnv(s.Credentials, lookup))}
	test, _ := lookup(EnvTest)
	if test == "" {
		test = req.Caller
	}
	return o.Observe(Call{Argv: req.Argv, Stdin: req.Stdin, Input: req.Input}, test)
}

// OpenWriter opens the shim's observation file, shim-ADAPTER.jsonl.
func (s *Shim) OpenWriter() (*Writer, error) {
	return OpenWriter(s.Observed, "shim-"+s.Adapter, "shim")
}
