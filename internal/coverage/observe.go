package coverage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
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
// (SSE, NDJSON) are passed on as the fake writes them. `cassette observe`
// and `cassette proxy --mode observe` serve it.
func (o *Observer) Proxy(target *url.URL) http.Handler {
	return o.Handler(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = r.In.Host },
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, fmt.Sprintf("cassette observe: the fake of adapter %s did not answer: %v", o.Adapter, err), http.StatusBadGateway)
		},
	})
}

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
// real command, observing each call. `cassette observe` writes it as JSON
// for the shims it puts on PATH.
type Shim struct {
	Adapter string `json:"adapter"`
	// Command is the name the shim stands for on PATH (git).
	Command string `json:"command"`
	// Fake is the fake's command line (an absolute path first), Env the
	// NAME=value pairs added to its environment, Dir where it runs (""
	// for the caller's directory).
	Fake []string `json:"fake"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Bin is the directory of the shims: the fake runs with it left out
	// of PATH, so that a fake that calls the real command by its name
	// (a wrapper around jq, git) reaches the real one, not its own shim
	// again and again.
	Bin string `json:"bin,omitempty"`
	// Observed is the directory observations go to, Project the project's
	// directory; Credentials the names of the adapter's credential
	// variables, Redact the project's own credential names (redact.names).
	Observed    string   `json:"observed"`
	Project     string   `json:"project"`
	Credentials []string `json:"credentials,omitempty"`
	Redact      []string `json:"redact,omitempty"`
	// Withhold are the variables the fake never sees: every adapter's
	// real.credentials and the forge's token (cfgschema.Config.SecretVars),
	// as verify withholds them; the shim still reads them to redact.
	Withhold []string `json:"withhold,omitempty"`
	// Coverage are the adapter's coverage settings (for the shape).
	Coverage cfgschema.Coverage `json:"coverage"`
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
// line by line while it answers).
func (s *Shim) Run(ctx context.Context, sio ShimIO) int {
	cmd := exec.CommandContext(ctx, s.Fake[0], append(append([]string(nil), s.Fake[1:]...), sio.Args...)...)
	if depth := shimDepth(sio.Env); depth >= maxShimDepth {
		fmt.Fprintf(sio.Stderr, "cassette observe: %s was run through the shims %d times in a row (the fake of adapter %s calls %s again?): stopped\n", s.Command, depth, s.Adapter, s.Command)
		return 127
	}
	env := append(withoutPathDir(cfgschema.WithoutVars(sio.Env, s.Withhold), s.Bin), s.Env...)
	env = append(env, fmt.Sprintf("%s=%d", shimDepthVar, shimDepth(sio.Env)+1))
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, s.Dir, sio.Stdout, sio.Stderr
	in := &stdinTee{}
	if sio.Stdin != nil && isPipeOrFile(sio.Stdin) {
		// The fake reads a pipe of its own, fed from ours: when it exits,
		// nothing waits for the caller to close its end.
		pr, pw, err := os.Pipe()
		if err == nil {
			in.src = sio.Stdin
			cmd.Stdin = pr
			go func() {
				_, _ = io.Copy(pw, in)
				pw.Close()
			}()
			defer pr.Close()
		}
	}
	code := 0
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code = 128 + 9 // killed by a signal
		}
	default:
		fmt.Fprintf(sio.Stderr, "cassette observe: the fake of adapter %s did not start: %v\n", s.Adapter, err)
		code = 127
	}
	s.observe(in, sio)
	return code
}

// shimDepthVar counts the shims a call went through, one inside another;
// maxShimDepth stops a loop of them (a fork bomb otherwise) whatever made
// it.
const (
	shimDepthVar = "CASSETTE_OBSERVE_SHIM_DEPTH"
	maxShimDepth = 8
)

func shimDepth(env []string) int {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], shimDepthVar+"="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// withoutPathDir is env with dir left out of its PATH.
func withoutPathDir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok && dir != "" {
			var keep []string
			for _, d := range filepath.SplitList(v) {
				if filepath.Clean(d) != filepath.Clean(dir) {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(os.PathListSeparator))
		}
		out = append(out, kv)
	}
	return out
}

// observe writes the call the shim ran.
func (s *Shim) observe(in *stdinTee, sio ShimIO) {
	rules, _ := NewRules(&cfgschema.Adapter{Kind: cfgschema.KindCLI, Coverage: s.Coverage})
	lookup := func(name string) (string, bool) {
		for i := len(sio.Env) - 1; i >= 0; i-- {
			if k, v, ok := cutEnv(sio.Env[i]); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	w, err := OpenWriter(s.Observed, "shim-"+s.Adapter, "shim")
	if err != nil {
		fmt.Fprintf(sio.Stderr, "cassette observe: the call was not observed: %v\n", err)
		return
	}
	defer w.Close()
	o := &Observer{Adapter: s.Adapter, Kind: cfgschema.KindCLI, Rules: rules, Writer: w,
		Redactor: redact.New(redact.NewRules(s.Redact), redact.FromEnv(s.Credentials, lookup))}
	c := Call{Argv: append([]string{s.Command}, sio.Args...)}
	c.Stdin, c.Input = in.given()
	test, _ := lookup(EnvTest)
	if test == "" {
		test = sio.Caller
	}
	if err := o.Observe(c, test); err != nil {
		fmt.Fprintf(sio.Stderr, "cassette observe: the call was not observed: %v\n", err)
	}
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return "", "", false
}

// isPipeOrFile: standard input that can carry data (not a terminal, not
// /dev/null).
func isPipeOrFile(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// stdinTee hands standard input to the fake and keeps its first MaxInput
// bytes.
type stdinTee struct {
	src  io.Reader
	mu   sync.Mutex
	head []byte
	n    int
}

func (t *stdinTee) Read(p []byte) (int, error) {
	n, err := t.src.Read(p)
	t.mu.Lock()
	t.n += n
	if room := MaxInput + 1 - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(n, room)]...)
	}
	t.mu.Unlock()
	return n, err
}

// given says whether input was given and its text when it is kept.
func (t *stdinTee) given() (bool, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		return false, ""
	}
	if t.n > MaxInput || !utf8.Valid(t.head) {
		return true, ""
	}
	return true, string(t.head)
}
