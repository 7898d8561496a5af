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
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// DefaultCaseTimeout bounds one case when Options.CaseTimeout is zero.
const DefaultCaseTimeout = 60 * time.Second

// Options configure a verify run.
type Options struct {
	Config      *cfgschema.Config
	Normalizers *normalize.Registry // built-ins plus the config's definitions
	Jobs        int                 // cases in parallel; 0 means runtime.NumCPU()
	CaseTimeout time.Duration       // per case; 0 means DefaultCaseTimeout
	// Exact compares every case byte for byte, whatever compare: its
	// contract names: refresh holds reality to its own recording, where a
	// field left out is a change of the service, never a fake's choice.
	Exact bool
	// ReadyTimeout bounds how long a fake may take to become ready (verify
	// --timeout when given); 0 means each adapter's fake.timeout, or
	// DefaultFakeTimeout.
	ReadyTimeout time.Duration
	LogDir       string            // where fake logs go; "" means a temp dir
	Now          func() time.Time  // for quarantine expiry; nil means time.Now
	Credentials  map[string]string // declared credential values, redacted from outputs
	// QuarantineRetry is how a quarantined case that failed is run again;
	// the zero value is the policy of specs/000 (1 retry, 5 s later).
	QuarantineRetry QuarantineRetry
	// answered, when set, is handed each fake's answer before it is
	// compared (Answers).
	answered func(c Case, got *cassettes.Cassette)
	// HTTP and CLI override the fakes of cassette.yaml per adapter (in-process
	// fakes from cassettetest, or a fake already running).
	HTTP map[string]HTTPTarget
	CLI  map[string]CLITarget
	// Kinds are the adapter kinds the cases may be of (internal/kind);
	// nil is http and cli.
	Kinds *kind.Registry

	pipes *pipelines // built normalizer pipelines (compare.go); nil builds each anew
	// stopping is Run's fresh fakes being stopped in the background
	// (Process.stopInBackground); nil stops each before its case returns.
	stopping *backgroundStops
}

// ProjectOptions are the options that verify the cases of project p: its
// config, normalizers and adapter kinds, and the values of its declared credential
// variables that are set (read through lookup; nil is os.LookupEnv),
// redacted from the fakes' outputs. Every door that judges a fake
// (`cassette verify`, `cases` and `check`, cassettetest, refresh's gate)
// starts from them, so that one fixture is judged one way; a door sets
// only what is its own (Jobs, CaseTimeout, LogDir, targets).
func ProjectOptions(p *workspace.Project, lookup func(string) (string, bool)) Options {
	return Options{Config: p.Config, Normalizers: p.Normalizers, Credentials: p.Credentials(lookup), Kinds: kind.Of(p.Kinds()), pipes: newPipelines()}
}

// Result is the outcome of one case.
type Result struct {
	Case    Case
	Status  verdict.Status
	Reason  outcome.Reason // set when the case did not pass
	Message string         // one line: what went wrong
	Drifts  []verdict.Drift
	Explain string // the human rendering of the drift
	// Actions are what the case sent the fake and what it answered, its
	// outputs normalized as they were compared.
	Actions []verdict.Action
	// Recorded is the cassette's side as it was compared (see
	// [Comparison]), kept for a case that failed.
	Recorded   []verdict.Action
	Duration   time.Duration
	Quarantine *cfgschema.Quarantine
	FakeLog    string         // path of the fake's log, when verify started it
	Err        *outcome.Error // the error behind an errored case, when there is one
	// Retries are the failed attempts of a quarantined case before its last
	// one (see QuarantineRetry); the result is the last attempt's.
	Retries []verdict.Retry
	// Modelled is what the fake models, for a case compared in modelled
	// mode (see [Comparison]).
	Modelled *verdict.Modelled
}

// Failed reports whether the case failed (quarantined or not).
func (r *Result) Failed() bool {
	return r.Status == verdict.StatusFail || r.Status == verdict.StatusError
}

// Outcome is a whole run: the results in plan order and a run-level error
// (a fake that did not start) if there was one.
type Outcome struct {
	Results  []Result
	Err      *outcome.Error
	Started  time.Time
	Finished time.Time
	FakeLogs map[string]string // adapter → log path
}

// Run verifies the cases. It starts the HTTP fakes the cases need (one per
// adapter, shared by its cases), runs the cases on Jobs workers, stops the
// fakes, and returns the results in the order of cases.
func Run(ctx context.Context, cases []Case, opts Options) *Outcome {
	if o, apart := runInProcessApart(ctx, cases, opts); apart {
		return o
	}
	if opts.pipes == nil {
		opts.pipes = newPipelines()
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	o := &Outcome{Started: now(), Results: make([]Result, len(cases)), FakeLogs: map[string]string{}}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	f := &fakes{opts: opts, logDir: opts.logDir(), jobs: jobs, logs: o.FakeLogs, targets: map[string]HTTPTarget{}, failed: map[string]*outcome.Error{}}
	f.build(ctx, cases)
	f.startShared(ctx, cases)
	defer f.stop()
	// Run returns once every fresh fake stopped in the background is gone.
	opts.stopping = newBackgroundStops(MaxFakesAhead)
	defer opts.stopping.wait()
	for _, name := range sortedKeys(f.failed) {
		if o.Err == nil {
			o.Err = f.failed[name]
		}
	}

	// The fresh fakes (one process per case) are started ahead, in plan
	// order, each for its case (pool.go).
	// caseFake starts case i's own fake; its log is named with suffix (a
	// retry's beside the first attempt's), a failure located in the config.
	// What every start of an adapter's fake shares is worked out once
	// (launch.go).
	ls := &launches{cfg: opts.Config}
	caseFake := func(ctx context.Context, i int, suffix string) (*Process, error) {
		c := cases[i]
		l := ls.get(c.Cassette.Adapter, c.Adapter)
		p, err := startFake(ctx, c.Cassette.Adapter, caseLogName(c)+suffix, readyBound(c.Adapter, opts.ReadyTimeout), opts.Config, l, f.logDir, false)
		return p, withFakeLine(err, opts.Config, c.Cassette.Adapter)
	}
	fresh := newFreshPool(ctx, freshPlan(cases, f.targets, f.failed), fakesAhead(), func(ctx context.Context, i int) (*Process, error) {
		return caseFake(ctx, i, "")
	})
	defer fresh.close()
	onWorkers(ctx, len(cases), jobs, func(i int) {
		o.Results[i] = runCase(ctx, cases[i], opts, f.targets, f.failed, now, func(ctx context.Context) (*Process, error) { return fresh.take(ctx, i) })
		fresh.drop(i) // a case that ended before it took its fake
		o.Results[i] = retryQuarantined(ctx, opts.QuarantineRetry, o.Results[i], func() Result {
			return runCase(ctx, cases[i], opts, f.targets, f.failed, now, func(ctx context.Context) (*Process, error) {
				return caseFake(ctx, i, ".retry")
			})
		})
		if o.Results[i].FakeLog == "" {
			o.Results[i].FakeLog = o.FakeLogs[cases[i].Cassette.Adapter]
		}
	}, func(i int) {
		o.Results[i] = Result{Case: cases[i], Status: verdict.StatusError, Reason: outcome.EInterrupted, Message: "not run: interrupted"}
	})
	// A fake that could not start for some case makes the run an
	// infrastructure failure: its results are not a verdict on the fake.
	for _, r := range o.Results {
		if o.Err == nil && r.Err != nil && r.Err.Exit() == outcome.ExitInfra {
			o.Err = r.Err
		}
	}
	if o.Err == nil {
		o.Err = belowMinModelled(o.Results, opts.Config) // modelled.go
	}
	o.Finished = now()
	return o
}

// onWorkers calls run(i) for i in 0…n-1, in order, on up to jobs workers;
// once ctx is done, the rest get skipped(i) instead.
func onWorkers(ctx context.Context, n, jobs int, run, skipped func(i int)) {
	work := make(chan int)
	var workers sync.WaitGroup
	for range min(jobs, max(1, n)) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := range work {
				run(i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil { // interrupted: the rest is not run
			skipped(i)
			continue
		}
		work <- i
	}
	close(work)
	workers.Wait()
}

// fakes are the fakes a run prepares before its cases: each adapter's
// build step, once, and the shared HTTP fakes, started once.
type fakes struct {
	opts    Options
	logDir  string
	jobs    int
	logs    map[string]string // adapter → log path (Outcome.FakeLogs)
	targets map[string]HTTPTarget
	failed  map[string]*outcome.Error // adapters whose fake could not be built or started
	procs   []*Process
	mu      sync.Mutex
}

// build builds the fakes that declare a build step, side by side.
func (f *fakes) build(ctx context.Context, cases []Case) {
	var wg sync.WaitGroup
	for _, name := range adaptersOf(cases, "") {
		_, inHTTP := f.opts.HTTP[name]
		_, inCLI := f.opts.CLI[name]
		if inHTTP || inCLI {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lp, err := BuildFake(ctx, name, f.opts.Config.Adapters[name], f.opts.Config, f.logDir)
			if err != nil {
				f.mu.Lock()
				f.failed[name] = outcome.AsError(err)
				f.logs[name] = lp
				f.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// startShared starts every HTTP fake the cases share, side by side; the
// overrides of Options.HTTP are targets as they are.
func (f *fakes) startShared(ctx context.Context, cases []Case) {
	// The maps are written by the goroutines: fill the overrides first.
	for name, t := range f.opts.HTTP {
		f.targets[name] = t
	}
	var wg sync.WaitGroup
	for _, name := range adaptersOf(cases, cfgschema.KindHTTP) {
		if _, ok := f.opts.HTTP[name]; ok {
			continue
		}
		a := f.opts.Config.Adapters[name]
		if f.failed[name] != nil || !a.Fake.Shared && len(a.Fake.Command) > 0 {
			continue // started per case
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := StartFake(ctx, name, readyBound(a, f.opts.ReadyTimeout), f.opts.Config, f.logDir)
			err = withFakeLine(err, f.opts.Config, name)
			f.mu.Lock()
			defer f.mu.Unlock()
			if err != nil {
				f.failed[name] = outcome.AsError(err)
				if lp := logOf(f.failed[name]); lp != "" {
					f.logs[name] = lp
				}
				return
			}
			f.procs = append(f.procs, p)
			if p.LogPath != "" {
				f.logs[name] = p.LogPath
			}
			f.targets[name] = processTarget(p)
		}()
	}
	wg.Wait()
}

func (f *fakes) stop() {
	for _, p := range f.procs {
		p.Stop()
	}
}

// freshPlan lists, in plan order, the cases that will run against a fresh
// fake of their own: HTTP cases whose adapter has no target (no override,
// no shared fake) and whose fake did not fail to build. A cassette that
// records no request needs no fake.
func freshPlan(cases []Case, targets map[string]HTTPTarget, failed map[string]*outcome.Error) []int {
	var plan []int
	for i, c := range cases {
		name := c.Cassette.Adapter
		if _, ok := targets[name]; ok || c.Adapter == nil || c.Cassette.Kind != cfgschema.KindHTTP ||
			failed[name] != nil || len(c.Cassette.Interactions) == 0 {
			continue
		}
		plan = append(plan, i)
	}
	return plan
}

func logOf(e *outcome.Error) string {
	for _, p := range e.Problems {
		if strings.HasSuffix(p.File, ".log") {
			return p.File
		}
	}
	return ""
}

// runCase runs one case to a result; it never panics the run.
// An HTTP case without a target gets its own fresh fake from fresh.
func runCase(ctx context.Context, c Case, opts Options, targets map[string]HTTPTarget, failed map[string]*outcome.Error, now func() time.Time, fresh func(context.Context) (*Process, error)) (res Result) {
	start := time.Now()
	res = Result{Case: c}
	compared := false
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeError, fmt.Sprintf("verify panicked on this case: %v", r)
		}
		res.Duration = time.Since(start)
		finish(&res, compared, opts, now())
	}()
	name := c.Cassette.Adapter
	if c.Adapter == nil {
		undeclared(&res, opts.Config)
		return res
	}
	if e := failed[name]; e != nil {
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeUnavailable, e.Message
		return res
	}
	k := &caseClock{parent: ctx, ctx: ctx, timeout: opts.CaseTimeout}
	if k.timeout <= 0 {
		k.timeout = DefaultCaseTimeout
	}
	defer k.stop()
	var (
		got *cassettes.Cassette
		err error
	)
	switch kd, _ := opts.Kinds.Lookup(c.Cassette.Kind); r := kd.(type) {
	case kind.Replayer: // a kind that plays its own cases (kinds.go)
		got, err = runKindCase(k, c, opts, r, &res)
	case nil:
		res.Err = unknownKind(c, opts)
		res.Status, res.Reason, res.Message = verdict.StatusError, res.Err.Reason, res.Err.Message
	default:
		if c.Cassette.Kind == cfgschema.KindCLI {
			got, err = runCLICase(k, c, opts, &res)
		} else {
			var stop func()
			got, stop, err = runHTTPCase(k, c, opts, targets, fresh, &res)
			defer stop()
		}
	}
	switch {
	case res.Status != "": // decided on the way
	case err != nil:
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeError, err.Error()
		switch {
		case k.parent.Err() != nil:
			res.Reason, res.Message = outcome.EInterrupted, "interrupted before the case finished"
		case k.ctx.Err() != nil:
			res.Reason, res.Message = outcome.ETimeout, fmt.Sprintf("the case did not finish within %s (--timeout): %v", k.timeout, err)
		}
	default:
		if opts.answered != nil && got != nil {
			opts.answered(c, got)
		}
		compared = compareCase(c, got, opts, &res)
	}
	return res
}

// Decide is the verdict on one case whose side under test ran elsewhere
// (another language's test runner captured its output, got): the
// comparison, drifts and both sides Run would give, without running
// anything. actions are what the capture logged of that run (nil for
// none); their outputs are replaced by the compared forms. An [Outcome] of
// such results is reported as Run's is, with [Outcome.Report].
func Decide(c Case, got *cassettes.Cassette, actions []verdict.Action, opts Options) Result {
	res := Result{Case: c, Actions: actions}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	finish(&res, compareCase(c, got, opts, &res), opts, now())
	return res
}

// finish completes a case's result whatever its outcome: the previews
// carry the normalized (and so redacted) output, so that a fake that echoes
// a credential never leaks it (a compared case's are already the compared
// forms); the quarantine entry is attached; a case that did not fail keeps
// no recorded side (the same as the fake's: nothing to show).
func finish(res *Result, compared bool, opts Options, now time.Time) {
	if !compared {
		normalizeActions(res.Case, res.Actions, opts)
	}
	applyQuarantine(res, opts.Config, now)
	if !res.Failed() {
		res.Recorded = nil
	}
}

// caseClock is a case's time limit. It starts once the case's fake is
// ready: a fake's start-up has its own limit (fake.timeout).
type caseClock struct {
	parent  context.Context
	ctx     context.Context // parent until started
	cancel  context.CancelFunc
	timeout time.Duration
}

func (k *caseClock) start() context.Context {
	k.ctx, k.cancel = context.WithTimeout(k.parent, k.timeout)
	return k.ctx
}

func (k *caseClock) stop() {
	if k.cancel != nil {
		k.cancel()
	}
}

// runCLICase runs a CLI case's fake; a fake that cannot run or crashed
// decides the case (res.Status is set).
func runCLICase(k *caseClock, c Case, opts Options, res *Result) (*cassettes.Cassette, error) {
	name := c.Cassette.Adapter
	run, ok := opts.CLI[name]
	if !ok {
		if len(c.Adapter.Fake.Command) == 0 {
			res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeUnavailable, "adapter "+name+" has no fake.command"
			return nil, nil
		}
		run = ProcessCLI(c.Adapter.Fake.Command, c.Adapter.Fake.Env, opts.Config)
	}
	got, actions, err := runCLI(k.start(), run, c.Cassette, cfgschema.ResolvePath(opts.Config.Dir, c.Adapter.Fake.Dir))
	res.Actions = actions
	switch {
	case errors.Is(err, errNotRunnable):
		res.Err = cliNotRunnable(opts.Config, name, err)
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeUnavailable, res.Err.Message
	case errors.Is(err, errCrashed):
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.EFakeUnavailable, err.Error()
	}
	return got, err
}

// runHTTPCase replays an HTTP case's requests against its adapter's target
// or, when it has none, a fresh fake of the case's own, which stop stops.
// A cassette without requests, a fake that could not start or died and a
// bad normalizer decide the case (res.Status is set).
func runHTTPCase(k *caseClock, c Case, opts Options, targets map[string]HTTPTarget, fresh func(context.Context) (*Process, error), res *Result) (got *cassettes.Cassette, stop func(), err error) {
	stop = func() {}
	name := c.Cassette.Adapter
	if emptyVerdict(res) { // go-vcr's `interactions: []`: no fake needed
		return nil, stop, nil
	}
	t, ok := targets[name]
	if !ok { // a fresh fake for this case
		p, err := fresh(k.parent)
		if err != nil {
			ce := outcome.AsError(err)
			res.Status, res.Reason, res.Message, res.Err = verdict.StatusError, ce.Reason, ce.Message, ce
			res.FakeLog = logOf(ce)
			return nil, stop, nil
		}
		// Its log is kept when the case does not pass (fakelog.go).
		stop = func() {
			if res.Status == verdict.StatusPass && opts.stopping != nil {
				p.stopInBackground(opts.stopping) // its log is not kept: nothing to wait for
				return
			}
			res.FakeLog = p.StopKeepingLog(res.Status != verdict.StatusPass)
		}
		t = processTarget(p)
	}
	p, err := pipeline(c, opts)
	if err != nil {
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.ECassetteInvalid, err.Error()
		return nil, stop, nil
	}
	got, res.Actions, err = replayHTTP(k.start(), t, c.Cassette, p)
	if err != nil && t.Alive != nil {
		if alive, exitErr := t.Alive(); !alive {
			// A fake that died mid-run became unavailable: infrastructure
			// (exit 3), not a drift of its answers.
			res.Status, res.Reason = verdict.StatusError, outcome.EFakeUnavailable
			res.Message = fmt.Sprintf("the fake crashed (%v): %v", exitErr, err)
		}
	}
	return got, stop, err
}

// compareCase compares the fake's output with the cassette and decides the
// case; it reports whether the comparison was made (the actions then hold
// the compared forms, and res.Recorded the cassette's).
func compareCase(c Case, got *cassettes.Cassette, opts Options, res *Result) bool {
	// A case that passes keeps no recorded side (finish), unless its
	// quarantine has expired, which fails it.
	_, quarantined := opts.Config.Quarantine[c.ID()]
	sides, err := compareSides(c, got, opts, quarantined)
	if err != nil {
		res.Status, res.Reason, res.Message = verdict.StatusError, outcome.ECassetteInvalid, err.Error()
		return false
	}
	res.Actions, res.Recorded, res.Modelled = sides.WithObserved(res.Actions), sides.Recorded, sides.Modelled
	if len(sides.Drifts) == 0 {
		res.Status = verdict.StatusPass
		return true
	}
	res.Status, res.Reason, res.Drifts, res.Explain = verdict.StatusFail, outcome.EContractDrift, sides.Drifts, sides.Explain
	res.Message = sides.Drifts[0].Message
	return true
}

func adaptersOf(cases []Case, kind cfgschema.Kind) []string {
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
// proxy and without transparent decompression (bodies compare as sent), on
// the connection its readiness check opened (fake.go).
func processTarget(p *Process) HTTPTarget {
	return HTTPTarget{BaseURL: p.BaseURL, Alive: func() (bool, error) { return p.alive(time.Second) },
		Client: &http.Client{Transport: p.tr}}
}

// normalizeActions replaces the fake's bodies and outputs in the actions by
// their normalized forms (the report previews them): what the case compared,
// without the volatile values that would make golden reports differ per run.
func normalizeActions(c Case, actions []verdict.Action, opts Options) {
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
