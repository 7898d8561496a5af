package recording

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/workspace"
	"github.com/cassette-dev/cassette/match"
)

// ProxyJob is one `cassette proxy` run in a mode that records, replays or
// passes through (observe is coverage's): its flags as given, and the
// project when there is a cassette.yaml. cmd/cassette binds the flags to
// its fields and calls Run; a test builds one without the process.
type ProxyJob struct {
	Mode, Listen, Upstream, Cassette, Adapter, UpstreamCA string
	AllowRemote, Replayable, Latency, IgnoreHost          bool
	MatchHeaders                                          []string
	MatchBody                                             string
	MaxRequestBody                                        int64
	AllowStatus                                           []int
	Match                                                 MatchFlags
	// Changed says whether the flag of that name was given (a flag given
	// is laid over the config's `match:`); nil is none.
	Changed func(name string) bool
	// CA is the forward proxy's CA (CA(), when there is no Upstream).
	CA func() (*proxy.CA, error)

	// Load loads the project after the flags are checked: nil without
	// cassette.yaml (or Load nil).
	Load     func() (*workspace.Project, error)
	Project  *workspace.Project           // what Load loaded
	Recorder cassettes.Recorder           // the build that records
	Step     func(words ...string) string // renders a next step naming the --config; nil is outcome.Command
	Out, Log io.Writer                    // what the proxy says; its log and warnings
	// Notify, when set, gives the context the proxy serves under once it
	// is ready to (signal.NotifyContext: Ctrl-C before then ends the
	// process as it always did); nil serves under ctx.
	Notify func(context.Context) (context.Context, context.CancelFunc)
}

// MatchFlags are the replay matching flags, the same settings as
// `match:` in cassette.yaml.
type MatchFlags struct {
	URLs, Params, Ignore, Only []string
	Sequence, Preset           string
}

// Run checks the flags, loads what the mode needs, claims the cassette it
// records into, and serves until ctx ends (ServeProxy).
func (j *ProxyJob) Run(ctx context.Context) error {
	mode, err := j.check()
	if err != nil {
		return err
	}
	// The proxy's goroutines (a tunnel's warnings among them) and the save's
	// notes write to one log, each a whole line at a time.
	j.Log = lockedWriter(j.Log)
	adapter, scenario := j.target()
	indexed := proxy.LowGC() // until the cassettes are loaded and indexed
	defer indexed()
	if j.Load != nil {
		if j.Project, err = j.Load(); err != nil {
			return err
		}
	}
	opts, err := j.options(mode, adapter)
	if err != nil {
		return err
	}
	s := NewSession(j.Project, adapter, SessionOptions{Scenario: scenario, Recorder: j.Recorder})
	opts.Redact = s.Redactor
	var save *ProxySave
	if mode != proxy.ModeReplay && mode != proxy.ModePassthrough {
		save = s.ProxySave(j.Cassette, j.again())
		save.BaseURL, save.Log = j.Upstream, j.Log
		if a, ok := j.declared(adapter); ok && j.Upstream == "" {
			save.BaseURL = a.Real.BaseURL // a forward proxy: the adapter's own host is the recording
		}
		if len(opts.Cassettes) == 1 && mode == proxy.ModeReplayWithNewEpisodes {
			save.Before = opts.Cassettes[0].Interactions
		}
		unlock, err := j.claim(save, scenario)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if j.Notify != nil {
		var stop context.CancelFunc
		ctx, stop = j.Notify(ctx)
		defer stop()
	}
	return ServeProxy(ctx, j.Out, opts, save, indexed)
}

func (j *ProxyJob) step(words ...string) string {
	if j.Step == nil || j.Project == nil {
		return outcome.Command(words...)
	}
	return j.Step(words...)
}

func (j *ProxyJob) changed(name string) bool { return j.Changed != nil && j.Changed(name) }

// claim checks where a recording proxy will save, before it listens: in
// a project, inside it (its symlinks resolved); a scenario name that
// keeps the name rule; and the cassette's write lock, held until the proxy
// has saved (another process recording into it is E_LOCKED).
func (j *ProxyJob) claim(save *ProxySave, scenario string) (func(), error) {
	root := "."
	if p := j.Project; p != nil {
		root = p.Config.Dir
		if resolved, ok := cassettes.Within(root, j.Cassette); !ok {
			return nil, &outcome.Error{Reason: outcome.EUsage,
				Message:  fmt.Sprintf("--cassette %s is outside the project %s (it resolves to %s): a recording is saved inside the project it belongs to", outcome.Printable(j.Cassette), outcome.Printable(root), outcome.Printable(resolved)),
				NextStep: j.step(j.words(filepath.Join(p.Config.CassetteDir(), save.Adapter, filepath.Base(j.Cassette)))...)}
		}
		save.Root = root
	}
	if !cassettes.ValidName(scenario) {
		next := outcome.Command("cassette", "proxy", "--help")
		if name := cassettes.WildName(scenario); name != "" {
			next = j.step(j.words(filepath.Join(filepath.Dir(j.Cassette), name+".yaml"))...)
		}
		return nil, &outcome.Error{Reason: outcome.EUsage, NextStep: next,
			Message:  fmt.Sprintf("--cassette %s: %q is not a valid scenario name", outcome.Printable(j.Cassette), scenario),
			Problems: []outcome.Problem{{Field: "--cassette", Message: "its file name is the scenario", Expected: cassettes.ScenarioRule}}}
	}
	lock, err := workspace.LockCassette(root, filepath.Dir(j.Cassette), j.Cassette)
	if err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.ELocked {
			ce.NextStep = j.again()
		}
		return nil, err
	}
	return lock.Unlock, nil
}

// check checks the flags that do not need the project, and returns the mode.
func (j *ProxyJob) check() (proxy.Mode, error) {
	mode, err := proxy.ParseMode(j.Mode)
	if err != nil {
		return mode, err
	}
	help := outcome.Command("cassette", "proxy", "--help")
	if j.Cassette == "" && mode != proxy.ModePassthrough {
		return mode, outcome.Errorf(outcome.EUsage, help, "--cassette is required in %s mode (a file cassettes/<adapter>/<scenario>.yaml, or for replay a directory)", mode)
	}
	if recording := mode != proxy.ModeReplay && mode != proxy.ModePassthrough; recording && !strings.HasSuffix(j.Cassette, ".yaml") {
		return mode, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--mode", j.Mode, "--cassette", strings.TrimSuffix(strings.TrimSuffix(j.Cassette, "/"), ".yml")+".yaml"),
			"--cassette must name a .yaml file to record into, got %q", j.Cassette)
	}
	switch j.MatchBody {
	case "raw", "json", "ignore":
	default:
		return mode, outcome.Errorf(outcome.EUsage, help, "--match-body %q: expected raw, json or ignore", j.MatchBody)
	}
	switch j.Match.Sequence {
	case "", "once", "replayable":
	default:
		return mode, outcome.Errorf(outcome.EUsage, help, "--sequence %q: expected once or replayable", j.Match.Sequence)
	}
	if err := matching.Check(j.apply(match.Rules{})); err != nil {
		return mode, outcome.Errorf(outcome.EUsage, help, "%v (the matching flags are in cassette proxy --help)", err)
	}
	return mode, nil
}

// target is the adapter (--adapter, else the cassette's directory) and
// the scenario (the cassette's file name) a recording is saved as.
func (j *ProxyJob) target() (adapter, scenario string) {
	adapter = j.Adapter
	if m := strings.Split(filepath.ToSlash(filepath.Clean(j.Cassette)), "/"); len(m) >= 2 && strings.HasSuffix(j.Cassette, ".yaml") {
		if adapter == "" {
			adapter = m[len(m)-2]
		}
		scenario = strings.TrimSuffix(m[len(m)-1], ".yaml")
	}
	return adapter, scenario
}

// declared is adapter's declaration in the project; false without one.
func (j *ProxyJob) declared(adapter string) (*cfgschema.Adapter, bool) {
	if j.Project == nil {
		return nil, false
	}
	a, ok := j.Project.Config.Adapters[adapter]
	return a, ok
}

// options builds the proxy's options from the flags and the project.
func (j *ProxyJob) options(mode proxy.Mode, adapter string) (proxy.Options, error) {
	up := proxy.Upstream{CAFile: j.UpstreamCA}
	if a, ok := j.declared(adapter); ok {
		up = UpstreamOf(j.Project.Config.Dir, adapter, a, j.UpstreamCA, nil)
	}
	if w := up.Warning(); w != "" && mode != proxy.ModeReplay {
		fmt.Fprintln(j.Log, w)
	}
	tr, err := up.Transport()
	if err != nil {
		return proxy.Options{}, err
	}
	opts := proxy.Options{Mode: mode, Listen: j.Listen, AllowNonLoopback: j.AllowRemote, Upstream: j.Upstream,
		Match:           j.apply(match.Rules{Headers: j.MatchHeaders, Body: match.BodyMode(j.MatchBody), Replayable: j.Replayable, IgnoreHost: j.IgnoreHost}),
		SimulateLatency: j.Latency, Log: j.Log, Transport: tr, MaxRequestBody: j.MaxRequestBody, AllowStatus: j.AllowStatus}
	if j.Upstream == "" {
		if opts.CA, err = j.CA(); err != nil {
			return opts, err
		}
	}
	opts.Rerecord = j.rerecord
	if j.Cassette == "" {
		return opts, nil
	}
	if _, err := os.Stat(j.Cassette); err != nil {
		if mode == proxy.ModeReplay {
			return opts, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette at " + j.Cassette + ": record it first", Err: err,
				NextStep: opts.Rerecord(nil)}
		}
		return opts, nil
	}
	// Replay only serves copies of the loaded headers: they may be shared.
	// (A mode that records saves the loaded interactions again.)
	if opts.Cassettes, err = cassettes.LoadTree([]string{j.Cassette}, cassettes.LoadOptions{ShareHeaders: mode == proxy.ModeReplay}); err != nil {
		return opts, err
	}
	if j.Project != nil {
		if opts.MatchFor, err = j.matchFromConfig(opts.Match); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// ServeProxy runs the proxy until ctx ends (SIGINT or SIGTERM), then stops
// it, waits for the interactions still being recorded, and saves them when
// save is set (a recording mode). A clean stop returns nil (exit 0); a
// recording during which the real service failed is not saved (exit 3).
// indexed, when set, is called once the cassettes are indexed.
func ServeProxy(ctx context.Context, w io.Writer, opts proxy.Options, save *ProxySave, indexed func()) error {
	p, err := proxy.New(opts)
	if indexed != nil {
		indexed()
	}
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return err
	}
	fmt.Fprintf(w, "cassette proxy: %s mode, listening on %s\n", p.Mode(), p.URL())
	if opts.Upstream != "" {
		fmt.Fprintf(w, "  reverse proxy for %s: point the client's base URL at %s\n", opts.Upstream, p.URL())
	} else {
		fmt.Fprintf(w, "  forward proxy: in the client's shell,\n")
		for _, kv := range opts.CA.ChildEnv(p.URL()) {
			fmt.Fprintf(w, "    export %s\n", kv)
		}
	}
	// record-once is resolved now: record or replay.
	recording := save != nil && (p.Mode() == proxy.ModeRecord || p.Mode() == proxy.ModeReplayWithNewEpisodes)
	fmt.Fprintf(w, "  press Ctrl-C to stop%s\n", map[bool]string{true: " and save what was recorded", false: ""}[recording])
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // responses still being recorded
	defer cancel()
	shutErr := p.Shutdown(sctx)
	recorded := 0
	if recording {
		c, err := SaveProxy(p, *save)
		if err != nil {
			return err
		}
		if c != nil {
			recorded = len(c.Interactions) - len(save.Before)
			for _, it := range c.Interactions[len(save.Before):] {
				fmt.Fprintf(w, "  recorded %s %s → %d\n", it.Request.Method, proxy.ShownURL(it.Request.URL), it.Response.Code)
			}
			fmt.Fprintf(w, "saved %d interaction(s) to %s\n", len(c.Interactions), c.Path)
		}
	}
	fmt.Fprintf(w, "cassette proxy: stopped; %d interaction(s) recorded, %d replayed, %d replay miss(es)\n", recorded, p.Replayed(), len(p.Misses()))
	return shutErr
}

// syncWriter writes to w one call at a time.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// lockedWriter is w, serialized; nil stays nil.
func lockedWriter(w io.Writer) io.Writer {
	switch w.(type) {
	case nil, *syncWriter:
		return w
	}
	return &syncWriter{w: w}
}
