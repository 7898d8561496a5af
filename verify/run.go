package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/normalize"
	"github.com/cassette-dev/cassette/report"
)

// DefaultCaseTimeout bounds one case when Options.CaseTimeout is zero.
const DefaultCaseTimeout = 60 * time.Second

// Options configure a verify run.
type Options struct {
	Config      *cassettes.Config
	Normalizers *normalize.Registry // built-ins plus the config's definitions
	Jobs        int                 // cases in parallel; 0 means runtime.NumCPU()
	CaseTimeout time.Duration       // per case; 0 means DefaultCaseTimeout
	LogDir      string              // where fake logs go; "" means a temp dir
	Now         func() time.Time    // for quarantine expiry; nil means time.Now
	Credentials map[string]string   // declared credential values, redacted from outputs
	// HTTP and CLI override the fakes of cassette.yaml per adapter (in-process
	// fakes from cassettetest, or a fake already running).
	HTTP map[string]HTTPTarget
	CLI  map[string]CLITarget
}

// Result is the outcome of one case.
type Result struct {
	Case       Case
	Status     report.Status
	Reason     cassettes.Reason // set when the case did not pass
	Message    string           // one line: what went wrong
	Drifts     []report.Drift
	Explain    string // the human rendering of the drift
	Actions    []report.Action
	Duration   time.Duration
	Quarantine *cassettes.Quarantine
	FakeLog    string           // path of the fake's log, when verify started it
	Err        *cassettes.Error // the error behind an errored case, when there is one
}

// Failed reports whether the case failed (quarantined or not).
func (r *Result) Failed() bool {
	return r.Status == report.StatusFail || r.Status == report.StatusError
}

// Outcome is a whole run: the results in plan order and a run-level error
// (a fake that did not start) if there was one.
type Outcome struct {
	Results  []Result
	Err      *cassettes.Error
	Started  time.Time
	Finished time.Time
	FakeLogs map[string]string // adapter → log path
}

// Run verifies the cases. It starts the HTTP fakes the cases need (one per
// adapter, shared by its cases), runs the cases on Jobs workers, stops the
// fakes, and returns the results in the order of cases.
func Run(ctx context.Context, cases []Case, opts Options) *Outcome {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	o := &Outcome{Started: now(), Results: make([]Result, len(cases)), FakeLogs: map[string]string{}}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	logDir := opts.logDir()
	targets := map[string]HTTPTarget{}
	failed := map[string]*cassettes.Error{}
	var procs []*Process
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Build the fakes that declare a build step, once, side by side.
	for _, name := range adaptersOf(cases, "") {
		_, inHTTP := opts.HTTP[name]
		_, inCLI := opts.CLI[name]
		if inHTTP || inCLI {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lp, err := BuildFake(ctx, name, opts.Config.Adapters[name], opts.Config.Dir, logDir)
			if err != nil {
				mu.Lock()
				failed[name] = cassettes.AsError(err)
				o.FakeLogs[name] = lp
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Start every HTTP fake the cases need, side by side (the maps are
	// written by those goroutines: fill the overrides first).
	for name, t := range opts.HTTP {
		targets[name] = t
	}
	for _, name := range adaptersOf(cases, cassettes.KindHTTP) {
		if _, ok := opts.HTTP[name]; ok {
			continue
		}
		if failed[name] != nil || !opts.Config.Adapters[name].Fake.Shared && len(opts.Config.Adapters[name].Fake.Command) > 0 {
			continue // started per case
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := StartFake(ctx, name, opts.Config.Adapters[name], opts.Config.Dir, logDir)
			err = withFakeLine(err, opts.Config, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[name] = cassettes.AsError(err)
				if lp := logOf(failed[name]); lp != "" {
					o.FakeLogs[name] = lp
				}
				return
			}
			procs = append(procs, p)
			if p.LogPath != "" {
				o.FakeLogs[name] = p.LogPath
			}
			targets[name] = processTarget(p, jobs)
		}()
	}
	wg.Wait()
	defer func() {
		for _, p := range procs {
			p.Stop()
		}
	}()
	for _, name := range sortedKeys(failed) {
		if o.Err == nil {
			o.Err = failed[name]
		}
	}

	// The fresh fakes (one process per case) are started ahead, in plan
	// order, each for its case (pool.go).
	fresh := newFreshPool(ctx, freshPlan(cases, targets, failed), fakesAhead(), func(ctx context.Context, i int) (*Process, error) {
		c := cases[i]
		p, err := startFake(ctx, c.Cassette.Adapter, caseLogName(c), c.Adapter, opts.Config.Dir, logDir)
		return p, withFakeLine(err, opts.Config, c.Cassette.Adapter)
	})
	defer fresh.close()

	work := make(chan int)
	var workers sync.WaitGroup
	for range min(jobs, max(1, len(cases))) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := range work {
				o.Results[i] = runCase(ctx, cases[i], opts, targets, failed, now, func(ctx context.Context) (*Process, error) { return fresh.take(ctx, i) })
				fresh.drop(i) // a case that ended before it took its fake
				if o.Results[i].FakeLog == "" {
					o.Results[i].FakeLog = o.FakeLogs[cases[i].Cassette.Adapter]
				}
			}
		}()
	}
	for i := range cases {
		if ctx.Err() != nil { // interrupted: the rest is not run
			o.Results[i] = Result{Case: cases[i], Status: report.StatusError, Reason: cassettes.EInterrupted, Message: "not run: interrupted"}
			continue
		}
		work <- i
	}
	close(work)
	workers.Wait()
	// A fake that could not start for some case makes the run an
	// infrastructure failure: its results are not a verdict on the fake.
	for _, r := range o.Results {
		if o.Err == nil && r.Err != nil && r.Err.Exit() == cassettes.ExitInfra {
			o.Err = r.Err
		}
	}
	o.Finished = now()
	return o
}

// freshPlan lists, in plan order, the cases that will run against a fresh
// fake of their own: HTTP cases whose adapter has no target (no override,
// no shared fake) and whose fake did not fail to build. A cassette that
// records no request needs no fake.
func freshPlan(cases []Case, targets map[string]HTTPTarget, failed map[string]*cassettes.Error) []int {
	var plan []int
	for i, c := range cases {
		name := c.Cassette.Adapter
		if _, ok := targets[name]; ok || c.Adapter == nil || c.Cassette.Kind == cassettes.KindCLI ||
			failed[name] != nil || len(c.Cassette.Interactions) == 0 {
			continue
		}
		plan = append(plan, i)
	}
	return plan
}

func logOf(e *cassettes.Error) string {
	for _, p := range e.Problems {
		if strings.HasSuffix(p.File, ".log") {
			return p.File
		}
	}
	return ""
}

// runCase runs one case to a result; it never panics the run.
// An HTTP case without a target gets its own fresh fake from fresh.
func runCase(ctx context.Context, c Case, opts Options, targets map[string]HTTPTarget, failed map[string]*cassettes.Error, now func() time.Time, fresh func(context.Context) (*Process, error)) (res Result) {
	start := time.Now()
	res = Result{Case: c}
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeError, fmt.Sprintf("verify panicked on this case: %v", r)
		}
		// Previews carry the normalized (and so redacted) output, whatever
		// the outcome: a fake that echoes a credential never leaks it.
		normalizeActions(c, res.Actions, opts)
		res.Duration = time.Since(start)
		applyQuarantine(&res, opts.Config, now())
	}()
	name := c.Cassette.Adapter
	if c.Adapter == nil {
		res.Status, res.Reason = report.StatusError, cassettes.ECassetteInvalid
		res.Message = fmt.Sprintf("adapter %q is not declared in %s", name, opts.Config.Path)
		return res
	}
	if e := failed[name]; e != nil {
		res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeUnavailable, e.Message
		return res
	}
	timeout := opts.CaseTimeout
	if timeout <= 0 {
		timeout = DefaultCaseTimeout
	}
	parent := ctx
	var cancel context.CancelFunc = func() {}
	defer func() { cancel() }()
	// The case's time starts once its fake is ready: a fake's start-up has
	// its own limit (fake.timeout).
	startClock := func() { ctx, cancel = context.WithTimeout(parent, timeout) }
	var (
		got *cassettes.Cassette
		err error
	)
	switch c.Cassette.Kind {
	case cassettes.KindCLI:
		run, ok := opts.CLI[name]
		if !ok {
			if len(c.Adapter.Fake.Command) == 0 {
				res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeUnavailable, "adapter "+name+" has no fake.command"
				return res
			}
			run = ProcessCLI(c.Adapter.Fake.Command, c.Adapter.Fake.Env)
		}
		startClock()
		got, res.Actions, err = runCLI(ctx, run, c.Cassette, cassettes.ResolvePath(opts.Config.Dir, c.Adapter.Fake.Dir))
		if errors.Is(err, errNotRunnable) {
			res.Err = cliNotRunnable(opts.Config, name, err)
			res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeUnavailable, res.Err.Message
			return res
		}
		if errors.Is(err, errCrashed) {
			res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeUnavailable, err.Error()
			return res
		}
	default:
		if len(c.Cassette.Interactions) == 0 { // go-vcr's `interactions: []`: no fake needed
			if c.Adapter.Match.For(c.Cassette.Scenario).Empty == "fail" {
				res.Status, res.Reason = report.StatusFail, cassettes.ETestFailed
				res.Message = "the cassette records no request, and adapter " + name + " has match.empty: fail"
				return res
			}
			res.Status, res.Message = report.StatusPass, "nothing to compare: the cassette records no request"
			return res
		}
		t, ok := targets[name]
		if !ok { // a fresh fake for this case
			p, err := fresh(parent)
			if err != nil {
				ce := cassettes.AsError(err)
				res.Status, res.Reason, res.Message, res.Err = report.StatusError, ce.Reason, ce.Message, ce
				res.FakeLog = logOf(ce)
				return res
			}
			defer p.Stop()
			res.FakeLog = p.LogPath
			t = processTarget(p, 1)
		}
		p, perr := pipeline(c, opts)
		if perr != nil {
			res.Status, res.Reason, res.Message = report.StatusError, cassettes.ECassetteInvalid, perr.Error()
			return res
		}
		startClock()
		got, res.Actions, err = replayHTTP(ctx, t, c.Cassette, p)
		if err != nil && t.Alive != nil {
			if alive, exitErr := t.Alive(); !alive {
				// A fake that died mid-run became unavailable: infrastructure
				// (exit 3), not a drift of its answers.
				res.Status, res.Reason = report.StatusError, cassettes.EFakeUnavailable
				res.Message = fmt.Sprintf("the fake crashed (%v): %v", exitErr, err)
				return res
			}
		}
	}
	if err != nil {
		res.Status, res.Reason, res.Message = report.StatusError, cassettes.EFakeError, err.Error()
		switch {
		case parent.Err() != nil:
			res.Reason, res.Message = cassettes.EInterrupted, "interrupted before the case finished"
		case ctx.Err() != nil:
			res.Reason, res.Message = cassettes.ETimeout, fmt.Sprintf("the case did not finish within %s (--timeout): %v", timeout, err)
		}
		return res
	}
	drifts, explain, err := Compare(c, got, opts)
	if err != nil {
		res.Status, res.Reason, res.Message = report.StatusError, cassettes.ECassetteInvalid, err.Error()
		return res
	}
	if len(drifts) == 0 {
		res.Status = report.StatusPass
		return res
	}
	res.Status, res.Reason, res.Drifts, res.Explain = report.StatusFail, cassettes.EContractDrift, drifts, explain
	res.Message = drifts[0].Message
	return res
}

// applyQuarantine attaches the case's quarantine entry: an expired entry
// turns the case into a hard failure, whatever its outcome.
func applyQuarantine(res *Result, cfg *cassettes.Config, now time.Time) {
	q, ok := cfg.Quarantine[res.Case.ID()]
	if !ok {
		return
	}
	res.Quarantine = &q
	if q.Expired(now) {
		res.Status, res.Reason = report.StatusFail, cassettes.EQuarantineExpired
		res.Message = fmt.Sprintf("quarantine of %s expired on %s", res.Case.ID(), q.Expires)
	}
}

func adaptersOf(cases []Case, kind cassettes.Kind) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cases {
		if c.Adapter == nil || kind != "" && c.Cassette.Kind != kind || seen[c.Cassette.Adapter] {
			continue
		}
		seen[c.Cassette.Adapter] = true
		out = append(out, c.Cassette.Adapter)
	}
	return out
}

func (o Options) logDir() string {
	if o.LogDir == "" {
		return filepath.Join(os.TempDir(), "cassette-fakes")
	}
	return o.LogDir
}

// processTarget reaches a fake process over loopback HTTP, without any
// proxy and without transparent decompression (bodies compare as sent).
func processTarget(p *Process, conns int) HTTPTarget {
	return HTTPTarget{BaseURL: p.BaseURL, Alive: func() (bool, error) { return p.alive(time.Second) },
		Client: &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: conns}}}
}

// normalizeActions replaces the fake's bodies and outputs in the actions by
// their normalized forms (the report previews them): what the case compared,
// without the volatile values that would make golden reports differ per run.
func normalizeActions(c Case, actions []report.Action, opts Options) {
	p, err := pipeline(c, opts)
	if err != nil {
		return
	}
	st := normalize.NewState()
	for i := range actions {
		a := &actions[i]
		if len(a.Body) > 0 {
			ct := ""
			if i < len(c.Cassette.Interactions) {
				ct = c.Cassette.Interactions[i].Response.Headers.Get("Content-Type")
			}
			a.Body = p.Body(st, ct, a.Body)
		}
		if len(a.Stdout) > 0 {
			a.Stdout = p.Output(st, a.Stdout)
		}
		if len(a.Stderr) > 0 {
			a.Stderr = p.Output(st, a.Stderr)
		}
	}
}

// caseLogName names a per-case fake's log after the case and its cassette
// file, so that two cassettes with one id never share a log.
func caseLogName(c Case) string {
	base := strings.TrimSuffix(filepath.Base(c.Cassette.Path), filepath.Ext(c.Cassette.Path))
	name := strings.ReplaceAll(c.ID(), "/", "__")
	if base != "" && base != c.Cassette.Scenario {
		name += "__" + base
	}
	return name
}
