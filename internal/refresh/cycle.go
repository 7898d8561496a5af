package refresh

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// DefaultEscalateAfter is the number of consecutive drifting cycles after
// which an adapter is escalated to its owners.
const DefaultEscalateAfter = 3

// Gate is the replay gate: verify the cases against their fakes.
type Gate func(ctx context.Context, cases []verify.Case) *verify.Outcome

// Options are what one cycle works with. Config, Git and Forge are required.
type Options struct {
	Config      *cfgschema.Config
	Normalizers *normalize.Registry // nil is the built-ins
	// Cassettes is the committed corpus; nil loads Config.CassetteDir().
	Cassettes []*cassettes.Cassette
	Adapters  []string                    // only these adapters; nil is all
	LookupEnv func(string) (string, bool) // credentials; nil is os.LookupEnv
	Recorder  Recorder                    // nil is Live
	Gate      Gate                        // nil is verify.Run with Config
	Git       *Git
	Forge     Forge
	Remote    string   // "" is Config.Refresh.Forge.Remote, then "origin"
	Base      string   // base branch of refresh PRs; "" is Config.Refresh.Base, then the current branch
	Labels    []string // on every refresh PR, besides LabelRefresh
	// EscalateAfter is the escalation threshold; 0 is Config.Refresh.EscalateAfter, then DefaultEscalateAfter.
	EscalateAfter int
	// DryRun writes the new cassettes to a temporary directory and says what
	// would be pushed and opened; it reads the remote and the forge, never
	// writes to them, and does not save the state. Against the real
	// services it sends only what cannot change them: the HTTP cassettes
	// whose every request is GET, HEAD or OPTIONS are re-recorded; CLI
	// cassettes (a command may change anything) and other methods are
	// listed as not re-recorded, unless DryRunUnsafe.
	DryRun bool
	// DryRunUnsafe makes a dry run re-record what may change a real
	// service too (scenarios marked mutating stay skipped unless the
	// adapter allows them, as in every cycle).
	DryRunUnsafe bool
	// Log receives one line per step; nil discards.
	Log io.Writer
	// AfterWrite is called after each new cassette is written (a test hook:
	// a crash injected here must leave nothing half-written).
	AfterWrite func(path string) error
}

// Result is one cycle.
type Result struct {
	Date     string
	DryRun   bool
	Started  time.Time
	Finished time.Time
	Adapters []*AdapterResult
	// Err is a failure of the whole cycle (the state could not be read or
	// saved).
	Err   *outcome.Error
	State *State
	// Threshold is the escalation threshold the cycle used.
	Threshold int
}

// AdapterResult is what the cycle did for one adapter.
type AdapterResult struct {
	Name    string
	Owners  []string
	Skipped string // why the whole adapter was skipped (no credentials)
	Cases   []*CaseResult
	Branch  string
	Commit  string // the refresh commit; "" when nothing new was committed
	Pushed  bool
	PR      *PR
	Issue   *Issue
	// Consecutive is the escalation count after this cycle; Escalated is
	// set when it reached the threshold.
	Consecutive int
	Escalated   bool
	Err         *outcome.Error // the branch, push or forge step failed
	// Gate is what the replay gate was and found (nil: it did not run).
	Gate *GateReport
	// Files are the paths written (relative to the repository root).
	Files []string
}

// CaseResult is one cassette of one adapter.
type CaseResult struct {
	Old      *cassettes.Cassette
	New      *cassettes.Cassette // nil when not re-recorded
	Status   verdict.Status
	Reason   outcome.Reason
	Message  string
	NextStep string
	Drifts   []verdict.Drift
	Explain  string
	Sides    *verify.Comparison // both sides as compared, normalized; nil when not compared
	Live     *recording.LiveRecord
	Gate     *verify.Result // the replay gate's result on the new cassette
	Duration time.Duration

	gateReplay string // the command that replays the failing gate case (an in-process fake's test)
	loggedOut  string // the real command says it is not logged in: why, for the adapter's skip
}

// Drifted reports whether the real side no longer gives the committed output.
func (c *CaseResult) Drifted() bool { return len(c.Drifts) > 0 }

type cycle struct {
	opts    Options
	now     time.Time
	date    string
	remote  string
	shown   string // remote with any credential removed, for messages and texts
	base    string
	top     string // repository root
	res     *Result
	state   *State
	logf    func(format string, args ...any)
	threshd int
}

// Cycle runs one refresh cycle at now (the date names branches and PRs;
// pass it in the schedule's time zone). It returns the result even when a
// step failed; each failure is in the result with its reason and next step.
func Cycle(ctx context.Context, now time.Time, opts Options) *Result {
	c := &cycle{opts: opts, now: now, date: now.Format(time.DateOnly)}
	c.res = &Result{Date: c.date, DryRun: opts.DryRun, Started: now}
	c.logf = func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	wall := time.Now()
	defer func() { c.res.Finished = c.res.Started.Add(time.Since(wall)) }()
	if err := c.run(ctx); err != nil {
		c.res.Err = outcome.AsError(err)
	}
	if ctx.Err() != nil { // SIGINT or SIGTERM: whatever failed after it failed of it
		c.res.Err = c.interrupted()
	}
	return c.res
}

// interrupted is the error of a cycle stopped by a signal: it publishes
// nothing after the signal (no push, PR, issue or state), and says what
// it had published before.
func (c *cycle) interrupted() *outcome.Error {
	var pushed []string
	for _, ar := range c.res.Adapters {
		if ar.Branch != "" && !c.opts.DryRun {
			pushed = append(pushed, ar.Branch)
		}
	}
	done := "nothing was pushed, opened or saved: the remote is as it was"
	if len(pushed) > 0 {
		done = "nothing more was pushed, opened or saved after the signal (pushed before it: " + strings.Join(pushed, ", ") + ")"
	}
	return &outcome.Error{Reason: outcome.EInterrupted, NextStep: c.again(),
		Message: "interrupted: the refresh cycle stopped before it finished; " + done + "; run the same command again"}
}

// again is this cycle's own command line (--once, a dry run's flags, its
// adapters and config) with more flags: a next step that runs what the
// user ran, corrected, never a real refresh in place of a dry run.
func (c *cycle) again(more ...string) string {
	words := []string{"cassette", "refresh", "--once"}
	if c.opts.DryRun {
		words = append(words, "--dry-run")
	}
	if c.opts.DryRunUnsafe {
		words = append(words, "--rerecord-unsafe")
	}
	for _, a := range c.opts.Adapters {
		words = append(words, "--adapter", a)
	}
	words = append(words, more...)
	if p := c.opts.Config.Path; p != "" && p != cfgschema.ConfigFile {
		words = append(words, "--config", p)
	}
	return outcome.Command(words...)
}

func (c *cycle) run(ctx context.Context) error {
	o := &c.opts
	cfg := o.Config
	c.remote = cmp.Or(o.Remote, cfg.Refresh.Forge.Remote, "origin")
	c.shown = o.Git.scrub(c.remote) // a remote URL may carry a token: messages show this
	top, err := o.Git.TopLevel(ctx)
	if err != nil {
		return &outcome.Error{Reason: outcome.EUsage, Message: cfg.Dir + " is not in a git repository: refresh works on one (commit cassette.yaml and the cassettes to it)", Err: err, NextStep: outcome.Command("git", "init")}
	}
	c.top = realPath(top)
	c.base = cmp.Or(o.Base, cfg.Refresh.Base, o.Git.CurrentBranch(ctx))
	if c.base == "" {
		return outcome.Errorf(outcome.EUsage, c.again("--base", "main"), "cannot tell the base branch of refresh PRs: HEAD is detached and refresh.base is not set (name it with --base, or check out a branch)")
	}
	c.threshd = firstPositive(o.EscalateAfter, cfg.Refresh.EscalateAfter, DefaultEscalateAfter)
	c.res.Threshold = c.threshd
	list := o.Cassettes
	if list == nil {
		list, err = cassettes.LoadTree([]string{cfg.CassetteDir()}, o.project().LoadOptions(nil))
		if err != nil {
			return err
		}
	}
	for _, a := range o.Adapters {
		if _, ok := cfg.Adapters[a]; !ok {
			return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, cfg.Path),
				Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared adapters: " + strings.Join(cfg.Order, ", "), Suggestion: outcome.Suggest(a, cfg.Order)}},
				NextStep: outcome.Command("cassette", "refresh", "--once", "--adapter", cmp.Or(outcome.Closest(a, cfg.Order), firstOf(cfg.Order)))}
		}
	}
	store := &StateStore{Git: o.Git, Remote: c.remote}
	if c.state, err = store.Load(ctx); err != nil {
		return err
	}
	c.res.State = c.state
	c.cleanWorktrees(ctx)
	if o.DryRun && !o.DryRunUnsafe {
		c.logf("dry run: re-recording only what cannot change the real services (GET, HEAD and OPTIONS requests); pushing, opening and saving nothing")
	}
	for _, name := range cfg.Order {
		if len(o.Adapters) > 0 && !slices.Contains(o.Adapters, name) {
			continue
		}
		if ctx.Err() != nil { // interrupted: no adapter after the signal
			return nil
		}
		var olds []*cassettes.Cassette
		for _, k := range list {
			if k.Adapter == name {
				olds = append(olds, k)
			}
		}
		ar := c.adapter(ctx, name, cfg.Adapters[name], olds)
		c.recordHistory(ar)
		c.res.Adapters = append(c.res.Adapters, ar)
	}
	if !c.reachedReal() {
		// Every re-recording failed (or was skipped): nothing was learned
		// about the real services, so the remote is left exactly as it was
		// (no state push) and a scheduled run catches this cycle up.
		c.logf("no cassette could be re-recorded: state not saved, %s left as it was", c.shown)
		return nil
	}
	if ctx.Err() != nil { // interrupted: the state is not saved
		return nil
	}
	c.state.LastRun = c.now
	if o.DryRun {
		c.logf("dry run: state not saved (would push %s to %s)", StateBranch, c.shown)
		return nil
	}
	return store.Save(ctx, c.state, "cassette refresh "+c.date)
}

// reachedReal reports whether any cassette was re-recorded this cycle.
func (c *cycle) reachedReal() bool {
	for _, ar := range c.res.Adapters {
		for _, cr := range ar.Cases {
			if cr.New != nil {
				return true
			}
		}
	}
	return false
}

// ProjectOptions are the options of a cycle over the loaded project p:
// its config and normalizers. The caller adds the git, the forge and what
// its flags say.
func ProjectOptions(p *workspace.Project) Options {
	return Options{Config: p.Config, Normalizers: p.Normalizers}
}

// project is the loaded project the options hold, whose load and verify
// options every load and gate of the cycle uses.
func (o *Options) project() *workspace.Project {
	return &workspace.Project{Config: o.Config, Normalizers: o.registry(), Redact: o.Config.Redaction()}
}

func (o *Options) registry() *normalize.Registry {
	if o.Normalizers != nil {
		return o.Normalizers
	}
	return normalize.Builtins()
}

func (o *Options) lookup() func(string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv
	}
	return os.LookupEnv
}

func firstPositive(xs ...int) int {
	for _, x := range xs {
		if x > 0 {
			return x
		}
	}
	return 0
}

func firstOf(xs []string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return ""
}
