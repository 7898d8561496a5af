package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/procgroup"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// HTTPTarget is an HTTP fake as verify reaches it: a base URL and a client.
type HTTPTarget struct {
	BaseURL string
	Client  *http.Client
	// Alive, when set, tells whether the fake is still running (to tell a
	// crash from a transport error).
	Alive func() (bool, error)
}

// Invocation is one run of a CLI fake.
type Invocation struct {
	Args  []string
	Stdin []byte
	Env   []string // NAME=value, from the recorded names
	Dir   string
}

// CLITarget runs a CLI fake once and returns its output. err is for a fake
// that could not be run at all (not found, not executable).
type CLITarget func(ctx context.Context, inv Invocation) (out cassettes.Output, err error)

// hopHeaders are not forwarded to a fake: the transport sets them itself.
var hopHeaders = map[string]bool{"Host": true, "Content-Length": true, "Connection": true, "Transfer-Encoding": true,
	"Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true, "Upgrade": true}

// replayHTTP sends the cassette's requests to the fake, in order, and returns
// a copy of the cassette whose responses are the fake's. A transport error
// stops the sequence: later requests may depend on earlier responses.
//
// Identities carry over: when the recorded responses held a volatile value
// (an id, a SHA) and the fake's responses hold another in the same place,
// later requests get the fake's value where the recording had the real
// one — so "create, then get what was created" works against a fake that
// makes its own ids.
func replayHTTP(ctx context.Context, t HTTPTarget, c *cassettes.Cassette, p *normalize.Pipeline) (*cassettes.Cassette, []verdict.Action, error) {
	got := *c
	got.Interactions = make([]cassettes.Interaction, len(c.Interactions))
	actions := make([]verdict.Action, 0, len(c.Interactions))
	ids := newIdentities(p)
	// Each recorded exchange is compared as it was: a recorded redirect is
	// a 3xx to compare, never followed (it may point at the real service).
	client := *t.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for i, recorded := range c.Interactions {
		got.Interactions[i] = recorded
		in := ids.apply(recorded)
		if isSession(recorded) { // a WebSocket session: message by message (websocket.go)
			act, err := replaySession(ctx, client, t.BaseURL, i, in, &got.Interactions[i], ids)
			actions = append(actions, act)
			if err != nil {
				return nil, actions, err
			}
			continue
		}
		u, err := url.Parse(in.Request.URL)
		if err != nil {
			return nil, actions, fmt.Errorf("interactions[%d].request.url %q: %w", i, in.Request.URL, err)
		}
		target := t.BaseURL + u.EscapedPath()
		if u.RawQuery != "" {
			target += "?" + u.RawQuery
		}
		req, err := http.NewRequestWithContext(ctx, in.Request.Method, target, bytes.NewReader([]byte(in.Request.Body)))
		if err != nil {
			return nil, actions, fmt.Errorf("interactions[%d].request: %w", i, err)
		}
		for k, vs := range in.Request.Headers {
			if !hopHeaders[http.CanonicalHeaderKey(k)] {
				req.Header[k] = vs[:len(vs):len(vs)] // the cassette's values: a transport does not write them, and one that adds a value gets an array of its own
			}
		}
		if req.Header.Get("User-Agent") == "" {
			req.Header.Set("User-Agent", "") // no Go default: the fake sees what was recorded
		}
		start := time.Now()
		resp, err := client.Do(req)
		// The action names the recorded URL, not the fake's address (a fresh
		// port each run), so that golden reports are stable.
		act := verdict.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: in.Request.Method, URL: recorded.Request.URL}
		if err != nil {
			act.Err, act.ErrKind = err.Error(), errKind(err)
			actions = append(actions, act)
			return nil, actions, fmt.Errorf("%s %s: %w", in.Request.Method, target, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		act.Duration, act.StatusCode, act.Body = time.Since(start), resp.StatusCode, body
		if ce := resp.Header.Values("Content-Encoding"); len(ce) > 0 {
			// The reports decode (and redact) a compressed body by it.
			act.Headers = http.Header{"Content-Encoding": ce}
		}
		actions = append(actions, act)
		if err != nil {
			return nil, actions, fmt.Errorf("%s %s: reading the body: %w", in.Request.Method, target, err)
		}
		r := &got.Interactions[i].Response
		r.Code, r.Status, r.Headers, r.Body, r.BodyFile = resp.StatusCode, resp.Status, resp.Header, cassettes.Body(body), ""
		r.ContentLength, r.Proto, r.ProtoMajor, r.ProtoMinor = resp.ContentLength, resp.Proto, resp.ProtoMajor, resp.ProtoMinor
		r.TransferEncoding, r.Trailer, r.Uncompressed, r.Duration = resp.TransferEncoding, resp.Trailer, resp.Uncompressed, 0
		if i < len(c.Interactions)-1 { // the last response has no later request to carry its values to
			ids.learn(recorded.Response, *r)
		}
	}
	return &got, actions, nil
}

// identities maps the volatile values of the recording to the fake's.
type identities struct {
	p        *normalize.Pipeline
	rec, got *normalize.State
	subst    map[string]string
	keys     []string // subst's keys, longest first
}

// newIdentities maps nothing yet; its states are made by the first learn
// (a cassette of one request never learns).
func newIdentities(p *normalize.Pipeline) *identities {
	return &identities{p: p}
}

// learn numbers the values of the recorded response and of the fake's, in
// the same order, and maps each recorded value to the fake's value of the
// same kind and number.
func (ids *identities) learn(rec, got cassettes.Response) {
	if ids.p == nil {
		return
	}
	if ids.rec == nil {
		ids.rec, ids.got, ids.subst = normalize.NewState(), normalize.NewState(), map[string]string{}
	}
	ids.p.Headers(ids.rec, rec.Headers)
	wn := ids.p.Body(ids.rec, rec.Headers.Get("Content-Type"), []byte(rec.Body))
	ids.p.Headers(ids.got, got.Headers)
	gn := ids.p.Body(ids.got, got.Headers.Get("Content-Type"), []byte(got.Body))
	rv, gv := ids.rec.Values(), ids.got.Values()
	for kind, byNum := range rv {
		for n, r := range byNum {
			if f, ok := gv[kind][n]; ok {
				ids.map1(r, f)
			}
		}
	}
	// The same place in both bodies holding placeholders of two kinds: the
	// recorded value was numbered by one normalizer (sha:full: it is 64
	// hex digits) and the fake's by another (a project's docker.id), which
	// the order of normalizers decides. They are one identity all the same.
	samePlace(wn, gn, func(w, g string) {
		wk, wnum, ok1 := placeholderOf(w)
		gk, gnum, ok2 := placeholderOf(g)
		if ok1 && ok2 && wk != gk {
			if r, f := rv[wk][wnum], gv[gk][gnum]; r != "" && f != "" {
				ids.map1(r, f)
			}
		}
	})
	sort.Slice(ids.keys, func(i, j int) bool {
		if len(ids.keys[i]) != len(ids.keys[j]) {
			return len(ids.keys[i]) > len(ids.keys[j])
		}
		return ids.keys[i] < ids.keys[j]
	})
}

// map1 maps recorded value r to the fake's f, once.
func (ids *identities) map1(r, f string) {
	if f == r || len(r) < 4 {
		return
	}
	if _, known := ids.subst[r]; !known {
		ids.subst[r] = f
		ids.keys = append(ids.keys, r)
	}
}

// placeholderRe is a numbered placeholder as the normalizers write one:
// <kind:N>, <sha:N:short>.
var placeholderRe = regexp.MustCompile(`^<([A-Za-z0-9_.-]+):([0-9]+)(?::short)?>$`)

// placeholderOf parses a numbered placeholder.
func placeholderOf(s string) (kind string, n int, ok bool) {
	m := placeholderRe.FindStringSubmatch(s)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	return m[1], n, err == nil
}

// samePlace calls fn with the strings at each place (object member, array
// item) that two JSON documents both have; nothing when one is not JSON.
func samePlace(w, g []byte, fn func(w, g string)) {
	var wv, gv any
	if json.Unmarshal(w, &wv) != nil || json.Unmarshal(g, &gv) != nil {
		return
	}
	var walk func(a, b any)
	walk = func(a, b any) {
		switch x := a.(type) {
		case string:
			if y, ok := b.(string); ok {
				fn(x, y)
			}
		case map[string]any:
			if y, ok := b.(map[string]any); ok {
				for k, v := range x {
					if u, ok := y[k]; ok {
						walk(v, u)
					}
				}
			}
		case []any:
			if y, ok := b.([]any); ok {
				for i := range min(len(x), len(y)) {
					walk(x[i], y[i])
				}
			}
		}
	}
	walk(wv, gv)
}

// apply returns the interaction with the recorded values in its request
// replaced by the fake's.
func (ids *identities) apply(in cassettes.Interaction) cassettes.Interaction {
	if len(ids.keys) == 0 {
		return in
	}
	pairs := make([]string, 0, 2*len(ids.keys))
	for _, k := range ids.keys {
		pairs = append(pairs, k, ids.subst[k])
	}
	r := strings.NewReplacer(pairs...)
	in.Request.URL = r.Replace(in.Request.URL)
	in.Request.Body = cassettes.Body(r.Replace(string(in.Request.Body)))
	h := http.Header{}
	for k, vs := range in.Request.Headers {
		for _, v := range vs {
			h[k] = append(h[k], r.Replace(v))
		}
	}
	in.Request.Headers = h
	return in
}

func errKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case strings.Contains(err.Error(), "connection refused"):
		return "connect"
	case strings.Contains(err.Error(), "EOF"), strings.Contains(err.Error(), "reset"):
		return "closed"
	}
	return "transport"
}

// runCLI runs the fake with the cassette's input and returns a copy of the
// cassette whose output is the fake's.
func runCLI(ctx context.Context, run CLITarget, c *cassettes.Cassette, dir string) (*cassettes.Cassette, []verdict.Action, error) {
	inv := Invocation{Args: c.Input.Args, Stdin: []byte(c.Input.Stdin), Dir: dir}
	for _, name := range c.Input.Env {
		if v, ok := os.LookupEnv(name); ok {
			inv.Env = append(inv.Env, name+"="+v)
		}
	}
	start := time.Now()
	out, err := run(ctx, inv)
	act := verdict.Action{Kind: "proc", ID: "output", Argv: append([]string{c.Input.Command}, c.Input.Args...),
		Stdout: []byte(out.Stdout), Stderr: []byte(out.Stderr), Exit: out.ExitCode, Duration: time.Since(start)}
	if err != nil {
		act.Err, act.ErrKind = err.Error(), errKind(err)
		return nil, []verdict.Action{act}, err
	}
	got := *c
	got.Output = &out
	got.Interactions = nil // the fake's HTTP, if any, is its own business: see Compare
	return &got, []verdict.Action{act}, nil
}

// errNotRunnable marks a CLI fake that could not be started at all.
var errNotRunnable = errors.New("the fake command cannot be run")

// errCrashed marks a CLI fake killed by a signal mid-run: the fake became
// unavailable (infrastructure), it did not answer wrongly.
var errCrashed = errors.New("crashed")

// ProcessCLI is the CLITarget of a fake command from cassette.yaml: the
// command, then the recorded arguments; the recorded environment names with
// their current values added to the environment, fake.env (env) on top.
// The variables cfg declares as live credentials are not in its
// environment (fakeEnv), whatever a cassette's input.env names.
func ProcessCLI(command []string, env map[string]string, cfg *cfgschema.Config) CLITarget {
	fe := newFakeEnv(cfg)
	return func(ctx context.Context, inv Invocation) (cassettes.Output, error) {
		args := append(append([]string(nil), command[1:]...), inv.Args...)
		cmd := exec.CommandContext(ctx, command[0], args...)
		cmd.Dir = inv.Dir
		cmd.Env = append(fe.environ(inv.Env...), envList(env, fe.lookup)...)
		cmd.Stdin = bytes.NewReader(inv.Stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		// The fake and whatever it starts form one process group, killed
		// whole when the case times out: no orphan outlives verify.
		cmd.SysProcAttr = procgroup.Attr()
		cmd.Cancel = procgroup.KillFunc(cmd)
		cmd.WaitDelay = 2 * time.Second
		err := cmd.Run()
		if cmd.Process != nil {
			_ = procgroup.Kill(cmd.Process.Pid) // what the fake left running in the background
		}
		out := cassettes.Output{Stdout: cassettes.Body(stdout.Bytes()), Stderr: cassettes.Body(stderr.Bytes())}
		var ee *exec.ExitError
		switch {
		case errors.Is(err, exec.ErrWaitDelay):
			// The fake exited but a child it left held its output open: its
			// exit status stands; the child was killed above.
			out.ExitCode = cmd.ProcessState.ExitCode()
		case err == nil:
		case ctx.Err() != nil:
			return out, fmt.Errorf("%s: %w", command[0], ctx.Err())
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			out.ExitCode = ee.ExitCode()
		case errors.As(err, &ee):
			return out, fmt.Errorf("%s %w: %v", command[0], errCrashed, ee)
		default:
			return out, fmt.Errorf("%w: %w", errNotRunnable, err)
		}
		return out, nil
	}
}

func envList(m map[string]string, lookup func(string) (string, bool)) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		v, _ := cfgschema.Expand(m[k], lookup)
		out = append(out, k+"="+v)
	}
	return out
}
