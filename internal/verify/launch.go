package verify

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/procgroup"
)

// launch is what every start of one adapter's fake shares within a run,
// worked out once instead of once a case (a fresh fake per case starts it
// a thousand times): the program looked up, its directory, the environment
// it inherits, the credential-less lookup its fake.env expands through,
// and what the run learned of when its fakes become ready (readyHint).
type launch struct {
	cmd    *procgroup.Command // nil: no fake.command
	dir    string
	env    []string // verify's environment less the secret variables, $PORT and fake.env's names: each name once
	port   bool     // $PORT is passed (it is not a secret variable, and fake.env does not set it)
	fake   map[string]string
	lookup func(string) (string, bool) // os.LookupEnv, the secret variables unset
	ready  readyHint
}

func newLaunch(a *cfgschema.Adapter, cfg *cfgschema.Config) *launch {
	l := &launch{dir: cfgschema.ResolvePath(cfg.Dir, a.Fake.Dir), fake: a.Fake.Env, lookup: newFakeEnv(cfg).lookuper()}
	if len(a.Fake.Command) > 0 {
		l.cmd = procgroup.NewCommand(a.Fake.Command)
	}
	_, fakePort := a.Fake.Env["PORT"]
	l.port = !fakePort && len(cfg.FakeEnviron(nil, "PORT=1")) == 1
	// As exec.Cmd did with the whole list: the last of a name wins.
	all := newFakeEnv(cfg).environ()
	seen := make(map[string]bool, len(all)+len(a.Fake.Env)+1)
	seen["PORT"] = true
	for k := range a.Fake.Env {
		seen[k] = true
	}
	for i := len(all) - 1; i >= 0; i-- {
		k, _, ok := strings.Cut(all[i], "=")
		if ok && seen[k] {
			continue
		}
		seen[k] = true
		l.env = append(l.env, all[i])
	}
	slices.Reverse(l.env)
	return l
}

// environ is the environment of a fake on port ("" for none): the
// inherited part, $PORT, then fake.env expanded (${PORT} in it too).
func (l *launch) environ(port string) []string {
	env := make([]string, len(l.env), len(l.env)+len(l.fake)+1)
	copy(env, l.env)
	if l.port && port != "" {
		env = append(env, "PORT="+port)
	}
	return append(env, envList(l.fake, l.lookupPort(port))...)
}

// lookupPort is lookup with $PORT set to port (when there is one).
func (l *launch) lookupPort(port string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if k == "PORT" && port != "" {
			return port, true
		}
		return l.lookup(k)
	}
}

// launches are a run's launch of each adapter, made when first needed.
type launches struct {
	mu  sync.Mutex
	cfg *cfgschema.Config
	of  map[string]*launch
}

func (ls *launches) get(name string, a *cfgschema.Adapter) *launch {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.of[name]; l != nil {
		return l
	}
	if ls.of == nil {
		ls.of = map[string]*launch{}
	}
	l := newLaunch(a, ls.cfg)
	ls.of[name] = l
	return l
}

// readyHint is what a run learned of an adapter's fakes: whether the last
// one was ready when it first wrote a line, and how long after its start.
// A fake of an adapter whose fakes are is given that long, ten times over,
// to write its line before it is checked blind (a check before the fake
// listens is a connection refused, a socket and a dial for nothing: under
// load, before this, most cases' fakes were checked so several times).
// A fake that went silent is checked blind after at most maxSpeakWait,
// and the next ones of its adapter are polled again from the start.
type readyHint struct {
	mu    sync.Mutex
	spoke bool
	took  time.Duration
}

// maxSpeakWait bounds the wait for a fake's first line before it is
// checked blind, when its adapter's fakes speak once ready.
const maxSpeakWait = time.Second

// firstWait is how long a fake waits for its first line before its first
// blind check, at least first.
func (h *readyHint) firstWait(first time.Duration) time.Duration {
	if h == nil {
		return first
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.spoke {
		return first
	}
	return max(first, min(10*h.took, maxSpeakWait))
}

// learn records how a fake became ready: at the check its first line
// woke (spoke), took after its start.
func (h *readyHint) learn(spoke bool, took time.Duration) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spoke, h.took = spoke, took
}
