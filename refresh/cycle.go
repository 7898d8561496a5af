package refresh

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/normalize"
	"github.com/cassette-dev/cassette/recorder"
	"github.com/cassette-dev/cassette/report"
	"github.com/cassette-dev/cassette/verify"
)

// DefaultEscalateAfter is the number of consecutive drifting cycles after
// which an adapter is escalated to its owners.
const DefaultEscalateAfter = 3

// Gate is the replay gate: verify the cases against their fakes.
type Gate func(ctx context.Context, cases []verify.Case) *verify.Outcome

// Options are what one cycle works with. Config, Git and Forge are required.
type Options struct {
	Config      *cassettes.Config
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
	// writes to them, and does not save the state.
	DryRun bool
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
	Err   *cassettes.Error
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
	Err         *cassettes.Error // the branch, push or forge step failed
	// Files are the paths written (relative to the repository root).
	Files []string
}

// CaseResult is one cassette of one adapter.
type CaseResult struct {
	Old      *cassettes.Cassette
	New      *cassettes.Cassette // nil when not re-recorded
	Status   report.Status
	Reason   cassettes.Reason
	Message  string
	NextStep string
	Drifts   []report.Drift
	Explain  string
	Live     *recorder.LiveRecord
	Gate     *verify.Result // the replay gate's result on the new cassette
	Duration time.Duration
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
		c.res.Err = cassettes.AsError(err)
	}
	return c.res
}

func (c *cycle) run(ctx context.Context) error {
	o := &c.opts
	cfg := o.Config
	c.remote = cmp.Or(o.Remote, cfg.Refresh.Forge.Remote, "origin")
	c.shown = o.Git.scrub(c.remote) // a remote URL may carry a token: messages show this
	c.base = cmp.Or(o.Base, cfg.Refresh.Base, o.Git.CurrentBranch(ctx))
	if c.base == "" {
		return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "refresh", "--once", "--base", "main"), "cannot tell the base branch of refresh PRs: HEAD is detached and refresh.base is not set (name it with --base, or check out a branch)")
	}
	c.threshd = firstPositive(o.EscalateAfter, cfg.Refresh.EscalateAfter, DefaultEscalateAfter)
	c.res.Threshold = c.threshd
	top, err := o.Git.TopLevel(ctx)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EUsage, Message: cfg.Dir + " is not in a git repository: refresh works on one (commit cassette.yaml and the cassettes to it)", Err: err, NextStep: cassettes.Command("git", "init")}
	}
	c.top = realPath(top)
	list := o.Cassettes
	if list == nil {
		list, err = cassettes.LoadTree([]string{cfg.CassetteDir()}, cassettes.LoadOptions{Config: cfg, Normalizers: o.registry()})
		if err != nil {
			return err
		}
	}
	for _, a := range o.Adapters {
		if _, ok := cfg.Adapters[a]; !ok {
			return &cassettes.Error{Reason: cassettes.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, cfg.Path),
				Problems: []cassettes.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared adapters: " + strings.Join(cfg.Order, ", "), Suggestion: cassettes.Suggest(a, cfg.Order)}},
				NextStep: cassettes.Command("cassette", "refresh", "--once", "--adapter", cmp.Or(cassettes.Closest(a, cfg.Order), firstOf(cfg.Order)))}
		}
	}
	store := &StateStore{Git: o.Git, Remote: c.remote}
	if c.state, err = store.Load(ctx); err != nil {
		return err
	}
	c.res.State = c.state
	c.cleanWorktrees(ctx)
	for _, name := range cfg.Order {
		if len(o.Adapters) > 0 && !slices.Contains(o.Adapters, name) {
			continue
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

// adapter refreshes one adapter.
func (c *cycle) adapter(ctx context.Context, name string, a *cassettes.Adapter, olds []*cassettes.Cassette) *AdapterResult {
	o := &c.opts
	ar := &AdapterResult{Name: name, Owners: a.Owners}
	var missing []string
	for _, v := range a.Real.Credentials {
		if val, ok := o.lookup()(v); !ok || val == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		ar.Skipped = fmt.Sprintf("no credentials: %s not set", strings.Join(missing, ", "))
		c.logf("%s: skipped (%s)", name, ar.Skipped)
		for _, old := range olds {
			ar.Cases = append(ar.Cases, &CaseResult{Old: old, Status: report.StatusSkipped, Message: "adapter skipped: " + ar.Skipped + "; export it to refresh this adapter",
				NextStep: cassettes.Command("cassette", "refresh", "--once", "--adapter", name)})
		}
		return ar
	}
	creds := recorder.Credentials(a.Real.Credentials, o.lookup())
	vopts := verify.Options{Config: o.Config, Normalizers: o.registry(), Credentials: creds}
	rec := o.Recorder
	if rec == nil {
		rec = Live{Config: o.Config, LookupEnv: o.lookup()}
	}
	failed := false
	for _, old := range olds {
		cr := &CaseResult{Old: old}
		ar.Cases = append(ar.Cases, cr)
		if old.Mutating && !a.AllowMutating {
			cr.Status, cr.Message = report.StatusSkipped, fmt.Sprintf("scenario mutates the real service (mutating: true); not re-recorded (set adapters.%s.allow_mutating: true in cassette.yaml to refresh it)", name)
			continue
		}
		start := time.Now()
		got, err := rec.Rerecord(ctx, name, a, old)
		cr.Duration = time.Since(start)
		if got.Live.ExecutionMode != "" {
			live := got.Live
			cr.Live = &live
		}
		if err != nil {
			failed = true
			ce := cassettes.AsError(err)
			cr.Status, cr.Reason, cr.Message = report.StatusError, ce.Reason, firstLine(ce.Error())
			cr.NextStep = cmp.Or(ce.NextStep, cassettes.Command("cassette", "record", "--adapter", name, "--scenario", old.Scenario))
			c.logf("%s: cannot re-record: %s", old.ID(), cr.Message)
			continue
		}
		cr.New = got.Cassette
		cr.New.Path = old.Path
		cr.Drifts, cr.Explain = compare(old, cr.New, a, vopts)
		if cr.Drifted() {
			cr.Status, cr.Reason, cr.Message = report.StatusFail, cassettes.ERealDrift, "the real service changed: "+cr.Drifts[0].Message
			c.logf("%s: drift (%d differences)", old.ID(), len(cr.Drifts))
		} else {
			cr.Status = report.StatusPass
			c.logf("%s: no drift", old.ID())
		}
	}
	var drifting []*CaseResult
	for _, cr := range ar.Cases {
		if cr.Drifted() {
			drifting = append(drifting, cr)
		}
	}
	st := c.state.Adapter(name)
	if len(drifting) == 0 {
		if !failed {
			st.Consecutive, st.Escalated, st.LastDrift, st.Branch, st.PR, st.Issue = 0, false, "", "", "", ""
		}
		ar.Consecutive = st.Consecutive
		return ar
	}
	if stamp := c.now.UTC().Format(time.RFC3339Nano); st.LastDrift != stamp {
		st.Consecutive++
		st.LastDrift = stamp
	}
	ar.Consecutive = st.Consecutive
	ar.Escalated = st.Consecutive >= c.threshd
	st.Escalated = ar.Escalated
	if err := c.publish(ctx, ar, a, drifting, creds, vopts); err != nil {
		ar.Err = cassettes.AsError(err)
		c.logf("%s: %s", name, ar.Err.Error())
		for _, cr := range drifting {
			cr.Status, cr.Reason = report.StatusError, ar.Err.Reason
			cr.Message = "drift found, but the refresh could not be published: " + firstLine(ar.Err.Error())
			cr.NextStep = ar.Err.NextStep
		}
		return ar
	}
	st.Branch, st.PR, st.Issue = ar.Branch, ar.PR.Ref(), ar.Issue.Ref()
	for _, cr := range drifting {
		if g := cr.Gate; g != nil && g.Failed() && g.Reason.Exit() == cassettes.ExitInfra {
			cr.Status, cr.Reason = report.StatusError, g.Reason
			cr.Message += "; refresh PR: " + ar.PR.Ref() + "; the replay gate could not run: " + firstLine(g.Message)
			cr.NextStep = cassettes.Command("cassette", "verify", "--adapter", name)
			continue
		}
		switch {
		case ar.Escalated:
			cr.Reason = cassettes.EEscalated
			cr.Message = fmt.Sprintf("escalated to %s: drifting for %d cycles in a row; %s", ownersText(a.Owners), ar.Consecutive, cr.Message)
		case cr.Gate != nil && cr.Gate.Failed():
			cr.Reason = cassettes.EFakeDrift
		}
		if cr.Gate != nil && cr.Gate.Failed() {
			cr.Message += "; the fake does not match the new cassette (" + firstLine(cr.Gate.Message) + "), see " + cmp.Or(ar.Issue.Ref(), "the fake-drift issue") +
				"; fetch " + ar.Branch + ", check it out and run " + cassettes.Command("cassette", "verify", "--case", cr.Old.ID()) + " to reproduce it, then fix the fake"
			cr.NextStep = cassettes.Command("git", "fetch", c.shown, ar.Branch)
		} else {
			cr.Message += "; refresh PR: " + ar.PR.Ref()
			if ar.PR.Number == 0 && ar.PR.URL == "" {
				cr.Message += "; review the branch (git diff HEAD FETCH_HEAD once fetched), then merge it into " + c.base
			}
			cr.NextStep = cassettes.Command("git", "fetch", c.shown, ar.Branch)
		}
	}
	return ar
}

// compare diffs the re-recorded cassette (got) against the committed one
// (want), normalized, with verify's comparison.
func compare(want, got *cassettes.Cassette, a *cassettes.Adapter, opts verify.Options) ([]report.Drift, string) {
	if want.Kind != cassettes.KindCLI && len(want.Interactions) != len(got.Interactions) {
		msg := fmt.Sprintf("the real service now makes %d HTTP interactions for this scenario; the cassette has %d", len(got.Interactions), len(want.Interactions))
		return []report.Drift{{Class: "interactions", Field: "interactions", Line: want.Line("interactions"), Message: msg}}, msg + "\n"
	}
	if want.Kind == cassettes.KindCLI && (want.Output == nil || got.Output == nil) {
		return []report.Drift{{Class: "output", Field: "output", Message: "no output to compare"}}, "no output to compare\n"
	}
	drifts, explain, err := verify.Compare(verify.Case{Cassette: want, Adapter: a}, got, opts)
	if err != nil {
		return []report.Drift{{Class: "normalizers", Field: "normalizers", Message: err.Error()}}, err.Error() + "\n"
	}
	return drifts, explain
}

// publish writes the drifting cassettes on the refresh branch, pushes it,
// opens or updates the PR, runs the replay gate and files the companion
// issue when the fake must change.
func (c *cycle) publish(ctx context.Context, ar *AdapterResult, a *cassettes.Adapter, drifting []*CaseResult, creds map[string]string, vopts verify.Options) error {
	o := &c.opts
	var existing *PR
	if o.Forge != nil {
		var err error
		if existing, err = o.Forge.OpenPR(ctx, ar.Name); err != nil {
			return err
		}
	}
	ar.Branch = Branch(ar.Name, c.date)
	if existing != nil {
		ar.Branch = existing.Branch
	}
	dir, cleanup, start, err := c.workdir(ctx, ar)
	if err != nil {
		return err
	}
	defer cleanup()
	saveOpts := recorder.NewRedactor(creds).SaveOptions()
	saveOpts.Root = dir // a symlinked adapter directory in the repository cannot send a write out of the worktree
	newPaths := map[*CaseResult]string{}
	for _, cr := range drifting {
		rel, err := c.relPath(cr.Old.Path)
		if err != nil {
			return err
		}
		k := *cr.New
		k.Path = filepath.Join(dir, rel)
		newPaths[cr] = k.Path
		ar.Files = append(ar.Files, filepath.ToSlash(rel))
		if prev, err := cassettes.Load(k.Path, cassettes.LoadOptions{Config: o.Config, Normalizers: o.registry()}); err == nil {
			if d, _ := compare(prev, &k, a, vopts); len(d) == 0 {
				continue // the branch already holds this recording (normalized): no churn
			}
		}
		if err := cassettes.Save(&k, saveOpts); err != nil {
			return err
		}
		if o.AfterWrite != nil {
			if err := o.AfterWrite(k.Path); err != nil {
				return err
			}
		}
	}
	title := Title(c.date, ar.Name)
	msg := CommitMessage(title, drifting)
	if o.DryRun {
		c.logf("dry run: would commit %s on %s and push it to %s", strings.Join(ar.Files, ", "), ar.Branch, c.shown)
	} else {
		if _, err := o.Git.run(ctx, dir, nil, append([]string{"add", "--"}, ar.Files...)...); err != nil {
			return gitStepError("stage the new cassettes", err)
		}
		if _, err := o.Git.run(ctx, dir, nil, "diff", "--cached", "--quiet"); err != nil {
			if _, err := o.Git.run(ctx, dir, nil, "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
				return gitStepError("commit the new cassettes", err)
			}
			out, _ := o.Git.run(ctx, dir, nil, "rev-parse", "HEAD")
			ar.Commit = strings.TrimSpace(out)
		}
		if ar.Commit != "" || existing == nil || start.fromBase {
			head, _ := o.Git.run(ctx, dir, nil, "rev-parse", "HEAD")
			if err := o.Git.Push(ctx, c.remote, strings.TrimSpace(head), ar.Branch); err != nil {
				return err
			}
			ar.Pushed = true
			c.logf("%s: pushed %s to %s", ar.Name, ar.Branch, c.shown)
		}
	}
	// The replay gate, on the cassettes as they are on the branch.
	var cases []verify.Case
	gateOf := map[int]*CaseResult{}
	for _, cr := range ar.Cases {
		k := cr.Old
		if p, ok := newPaths[cr]; ok {
			loaded, err := cassettes.Load(p, cassettes.LoadOptions{Config: o.Config, Normalizers: o.registry(), Credentials: creds})
			if err != nil {
				return err
			}
			k = loaded
			gateOf[len(cases)] = cr
		} else if cr.Status == report.StatusSkipped || cr.Status == report.StatusError {
			continue
		}
		cases = append(cases, verify.Case{Cassette: k, Adapter: a})
	}
	gate := o.Gate
	if gate == nil {
		gate = func(ctx context.Context, cases []verify.Case) *verify.Outcome { return verify.Run(ctx, cases, vopts) }
	}
	outcome := gate(ctx, cases)
	var gateFailed []verify.Result
	for i := range outcome.Results {
		r := outcome.Results[i]
		if cr, ok := gateOf[i]; ok {
			cr.Gate = &r
		}
		if r.Failed() && r.Reason.Exit() != cassettes.ExitInfra {
			gateFailed = append(gateFailed, r) // the fake answered wrongly; a fake that did not start is no fake drift
		}
	}
	body := PRBody(PRText{Date: c.date, Adapter: ar.Name, Branch: ar.Branch, Base: c.base, Drifting: drifting, Escalated: ar.Escalated,
		Owners: a.Owners, Consecutive: ar.Consecutive, GateFailed: len(gateFailed)})
	labels := append(append([]string{LabelRefresh}, o.Labels...), o.Config.Refresh.Labels...)
	if ar.Escalated {
		labels = append(labels, LabelEscalated)
	}
	req := PRRequest{Adapter: ar.Name, Branch: ar.Branch, Base: c.base, Title: title, Body: body, Labels: dedupe(labels), Existing: existing}
	if o.DryRun || o.Forge == nil {
		verb := "open"
		if existing != nil {
			verb = "update " + existing.Ref()
		}
		c.logf("dry run: would %s the refresh PR %q (%s → %s)", verb, title, ar.Branch, c.base)
		ar.PR = &PR{Branch: ar.Branch, Title: title, Body: body}
		if existing != nil {
			ar.PR.Number, ar.PR.URL = existing.Number, existing.URL
		}
	} else {
		if ar.PR, err = o.Forge.PublishPR(ctx, req); err != nil {
			return err
		}
		c.logf("%s: refresh PR %s", ar.Name, ar.PR.Ref())
	}
	if len(gateFailed) == 0 {
		return nil
	}
	ireq := IssueRequest{Adapter: ar.Name, Title: IssueTitle(ar.Name), Labels: []string{LabelFakeDrift},
		Body: IssueBody(IssueText{Adapter: ar.Name, PR: ar.PR, Remote: c.shown, Failed: gateFailed, Escalated: ar.Escalated, Owners: a.Owners, Consecutive: ar.Consecutive})}
	if ar.Escalated {
		ireq.Labels = append(ireq.Labels, LabelEscalated)
	}
	if o.DryRun || o.Forge == nil {
		c.logf("dry run: would file or update the issue %q", ireq.Title)
		ar.Issue = &Issue{Title: ireq.Title, Body: ireq.Body}
		return nil
	}
	if ar.Issue, err = o.Forge.PublishIssue(ctx, ireq); err != nil {
		return err
	}
	c.logf("%s: fake-drift issue %s", ar.Name, ar.Issue.Ref())
	return nil
}

type startPoint struct{ fromBase bool }

// workdir prepares where the new cassettes are written: a git worktree of
// the refresh branch (from its remote head, or from the remote base branch
// for a new one), or a temporary directory in a dry run.
func (c *cycle) workdir(ctx context.Context, ar *AdapterResult) (string, func(), startPoint, error) {
	o := &c.opts
	if o.DryRun {
		dir, err := os.MkdirTemp("", "cassette-refresh-dry-*")
		if err != nil {
			return "", nil, startPoint{}, &cassettes.Error{Reason: cassettes.EIO, Message: "cannot make a temporary directory (check $TMPDIR)", Err: err, NextStep: cassettes.Command("ls", "-ld", os.TempDir())}
		}
		return dir, func() { os.RemoveAll(dir) }, startPoint{}, nil
	}
	start, err := o.Git.FetchRef(ctx, c.remote, ar.Branch)
	if err != nil {
		return "", nil, startPoint{}, err
	}
	sp := startPoint{}
	if start == "" {
		sp.fromBase = true
		if start, err = o.Git.FetchRef(ctx, c.remote, c.base); err != nil {
			return "", nil, sp, err
		}
		if start == "" {
			return "", nil, sp, cassettes.Errorf(cassettes.EForge, cassettes.Command("git", "push", c.shown, c.base),
				"the base branch %s is not on the remote %s: push it, or set refresh.base in cassette.yaml", c.base, c.shown)
		}
	}
	wt, err := c.worktreePath(ctx, ar.Name)
	if err != nil {
		return "", nil, sp, err
	}
	c.removeWorktree(ctx, wt)
	if _, err := o.Git.Run(ctx, "worktree", "add", "--quiet", "--detach", wt, start); err != nil {
		return "", nil, sp, gitStepError("make a work tree for "+ar.Branch, err)
	}
	return wt, func() { c.removeWorktree(context.WithoutCancel(ctx), wt) }, sp, nil
}

// worktreePath is where the adapter's refresh work tree lives: inside the
// repository's git directory, so that a crashed cycle's leftovers are found
// and removed by the next one.
func (c *cycle) worktreePath(ctx context.Context, adapter string) (string, error) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", gitStepError("find the git directory", err)
	}
	return filepath.Join(gd, "cassette-refresh", adapter), nil
}

func (c *cycle) removeWorktree(ctx context.Context, wt string) {
	_, _ = c.opts.Git.Run(ctx, "worktree", "remove", "--force", wt)
	_ = os.RemoveAll(wt)
	c.forgetWorktree(ctx, wt)
}

// forgetWorktree removes git's record of our work tree wt when its
// directory is gone, and only that record: `git worktree prune` would also
// forget the user's own work trees whose directories are not there now (an
// unmounted disk).
func (c *cycle) forgetWorktree(ctx context.Context, wt string) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return
	}
	admin := filepath.Join(strings.TrimSpace(gd), "worktrees")
	entries, _ := os.ReadDir(admin)
	for _, e := range entries {
		link, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
		if err == nil && filepath.Dir(strings.TrimSpace(string(link))) == filepath.Clean(wt) {
			_ = os.RemoveAll(filepath.Join(admin, e.Name()))
		}
	}
}

// cleanWorktrees removes what a crashed cycle left behind.
func (c *cycle) cleanWorktrees(ctx context.Context) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return
	}
	entries, _ := os.ReadDir(filepath.Join(gd, "cassette-refresh"))
	for _, e := range entries {
		c.logf("removing the work tree a previous cycle left: %s", e.Name())
		c.removeWorktree(ctx, filepath.Join(gd, "cassette-refresh", e.Name()))
	}
}

// relPath is a cassette's path relative to the repository root.
func (c *cycle) relPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(c.top, realPath(abs))
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", cassettes.Errorf(cassettes.EUsage, cassettes.Command("git", "status"), "cassette %s is outside the repository %s: move the cassettes inside it", p, c.top)
	}
	return rel, nil
}

func gitStepError(what string, err error) error {
	return &cassettes.Error{Reason: cassettes.EIO, Message: "git: cannot " + what + " (check the repository, then run cassette refresh --once again)", Err: err, NextStep: cassettes.Command("git", "status")}
}

// realPath resolves symbolic links as far as the path exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
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

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func ownersText(owners []string) string {
	if len(owners) == 0 {
		return "the adapter's owners (none declared: add adapters.<name>.owners to cassette.yaml)"
	}
	return strings.Join(owners, ", ")
}
