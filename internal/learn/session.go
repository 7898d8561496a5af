package learn

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
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Session is one `cassette learn`: an adapter's scenarios recorded again
// several times against the real side, what varies learned, and
// cassette.yaml patched (and, with Apply, written and recorded once more).
type Session struct {
	Project   *workspace.Project
	Adapter   string
	Scenarios []string      // the scenarios to learn from; empty is all of the adapter's
	Repeat    int           // recordings per scenario; 0 is 3
	Interval  time.Duration // the wait between two recordings of a scenario
	// Unsafe re-records what may change the real service (a request other
	// than GET, HEAD, OPTIONS); a mutating scenario also needs the
	// adapter's allow_mutating.
	Unsafe bool
	// WithoutCommitted leaves the committed cassette out of the
	// recordings compared. By default it is one of them: recorded by
	// another process of the real side, at another time, it shows what
	// is fixed for a process's life (a start time, a working directory),
	// which repeating calls to one process never shows.
	WithoutCommitted bool
	// Record records a committed cassette again against the real side
	// (recording.Live, with the live retry policy), as a new client of
	// it: release closes the connections the recording left open (nil
	// when it left none). A scenario's recordings are released when its
	// last one is made, so that each repeat comes from a new client while
	// the earlier ones are still connected, and a value that depends on
	// the clients a server holds (a count of goroutines or connections)
	// varies as it does in production.
	Record func(ctx context.Context, old *cassettes.Cassette) (c *cassettes.Cassette, release func(), err error)
	// Fake runs the adapter's fake on the committed cassettes' inputs, as
	// verify does, and returns its answers in their order (nil for one it
	// gave none); nil learns from reality alone (--without-fake). A place
	// where only the fake differs is learned only when both values are of
	// one volatile class (fake.go); a fake that cannot run is a note, not
	// a failure: learning from reality goes on.
	Fake func(ctx context.Context, olds []*cassettes.Cassette) ([]*cassettes.Cassette, error)
	// Sleep waits d or until ctx is done; nil waits on a timer.
	Sleep       func(ctx context.Context, d time.Duration) error
	Credentials map[string]string // the declared credential values: redaction of samples, the save's leak scan
	Log         io.Writer         // progress; nil discards
}

// Skip is a scenario not re-recorded, and why.
type Skip struct {
	Scenario, Why, NextStep string
}

// Outcome is what a session learned: the result, the scenarios it skipped,
// and cassette.yaml before and after.
type Outcome struct {
	Result  *Result
	Skipped []Skip
	Path    string
	// Repeat is how many new recordings of each scenario were made, and
	// Committed whether the committed cassette was compared with them.
	Repeat    int
	Committed bool
	// Fake is whether the fake's answers were compared too; FakeNote says
	// why not when the fake was asked and could not answer.
	Fake     bool
	FakeNote string
	Old      []byte
	New      []byte // equal to Old when nothing is learned
}

// Changed reports whether the session proposes a change to cassette.yaml.
func (o *Outcome) Changed() bool { return string(o.Old) != string(o.New) }

// Learn records every scenario Repeat times and learns from the
// recordings. Nothing is written.
func (s Session) Learn(ctx context.Context) (*Outcome, error) {
	cfg := s.Project.Config
	a := cfg.Adapters[s.Adapter]
	if a == nil {
		return nil, s.noAdapter()
	}
	olds, err := s.cassettes()
	if err != nil {
		return nil, err
	}
	out := &Outcome{Path: cfg.Path, Repeat: cmp.Or(s.Repeat, 3), Committed: !s.WithoutCommitted}
	scenarios, err := s.scenarios(ctx, a, olds, out)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(a.Normalizers)
	for _, sc := range scenarios {
		for _, n := range sc.Recordings[0].Normalizers {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if out.Old, err = os.ReadFile(cfg.Path); err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read " + cfg.Path, Err: err, NextStep: outcome.Command("ls", "-l", cfg.Path)}
	}
	out.New = out.Old
	if len(scenarios) == 0 {
		out.Result = &Result{Names: names}
		return out, nil
	}
	o := Options{Adapter: s.Adapter, Names: names, Defs: projectDefs(cfg), Headers: a.ContractHeaders,
		Normalize: normalize.Options{Credentials: s.Credentials, Rules: cfg.Redaction(), WorkDir: cfg.Dir},
		Redact:    redact.New(cfg.Redaction(), s.Credentials)}
	if out.Result, err = Learn(scenarios, o); err != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "cassette learn: " + err.Error(), NextStep: s.command("cassette", "validate")}
	}
	if len(out.Result.Proposals) > 0 {
		if out.New, err = Patch(cfg.Path, out.Old, s.Adapter, out.Result); err != nil {
			return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: err.Error(), NextStep: s.command("cassette", "validate")}
		}
	}
	return out, nil
}

// scenarios records each cassette again (those safe to repeat) and pairs
// it with the fake's answer to it, when the fake answered: a scenario not
// recorded again is still learned from, on the committed cassette and the
// fake's answer alone.
func (s Session) scenarios(ctx context.Context, a *cfgschema.Adapter, olds []*cassettes.Cassette, out *Outcome) ([]Scenario, error) {
	fakes := make([]*cassettes.Cassette, len(olds))
	if s.Fake != nil {
		got, err := s.Fake(ctx, olds)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			out.FakeNote = "the fake did not answer (" + err.Error() + "): learned from reality alone"
			s.logf("%s", out.FakeNote)
		default:
			copy(fakes, got)
			out.Fake = slices.ContainsFunc(fakes, func(c *cassettes.Cassette) bool { return c != nil })
		}
	}
	var scenarios []Scenario
	for i, old := range olds {
		var recs []*cassettes.Cassette
		if why, next := s.unsafe(a, old); why != "" {
			out.Skipped = append(out.Skipped, Skip{Scenario: old.Scenario, Why: why, NextStep: next})
		} else {
			var err error
			if recs, err = s.repeat(ctx, old); err != nil {
				return nil, err
			}
		}
		if !s.WithoutCommitted {
			recs = append([]*cassettes.Cassette{old}, recs...)
		}
		if len(recs) > 1 || len(recs) == 1 && fakes[i] != nil {
			scenarios = append(scenarios, Scenario{Name: old.Scenario, Recordings: recs, Fake: fakes[i]})
		}
	}
	return scenarios, nil
}

// projectDefs are the project's normalizer definitions.
func projectDefs(cfg *cfgschema.Config) map[string]normalize.Definition {
	defs := map[string]normalize.Definition{}
	for n, d := range cfg.Normalizers {
		defs[n] = normalize.Definition{Regex: d.Regex, Replace: d.Replace, JSONPaths: d.JSONPaths, Headers: d.Headers}
	}
	return defs
}

// cassettes loads the adapter's committed cassettes (the scenarios asked
// for), each recorded again from its own input.
func (s Session) cassettes() ([]*cassettes.Cassette, error) {
	cfg := s.Project.Config
	dir := filepath.Join(cfg.CassetteDir(), s.Adapter)
	var list []*cassettes.Cassette
	if _, serr := os.Stat(dir); serr == nil { // none recorded yet: the step records one
		var err error
		if list, err = cassettes.LoadTree([]string{dir}, s.Project.LoadOptions(s.Credentials)); err != nil {
			return nil, err
		}
	}
	if len(s.Scenarios) == 0 {
		if len(list) == 0 {
			return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "adapter " + s.Adapter + " has no cassette in " + dir + " to learn from",
				NextStep: s.recordStep("")}
		}
		return list, nil
	}
	var out []*cassettes.Cassette
	for _, sc := range s.Scenarios {
		i := slices.IndexFunc(list, func(c *cassettes.Cassette) bool { return c.Scenario == sc })
		if i < 0 {
			return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: fmt.Sprintf("adapter %s has no cassette of scenario %q in %s", s.Adapter, sc, dir),
				NextStep: s.recordStep(sc)}
		}
		out = append(out, list[i])
	}
	return out, nil
}

// recordStep is the command that records a first cassette of scenario sc
// ("" for the adapter's declared scenarios): a cli adapter's names the
// real command after --.
func (s Session) recordStep(sc string) string {
	args := []string{"cassette", "record", "--adapter", s.Adapter}
	if sc != "" {
		args = append(args, "--scenario", sc)
	}
	if a := s.Project.Config.Adapters[s.Adapter]; a != nil && a.Kind == cfgschema.KindCLI && len(a.Real.Command) > 0 {
		if sc == "" {
			args = append(args, "--scenario", "first")
		}
		args = append(append(args, "--"), a.Real.Command...)
	}
	return s.command(args...)
}

// noAdapter is the error of an --adapter the project does not declare: a
// usage error (the config is fine), whose step learns from the adapter
// meant (the nearest name), or shows learn's help when none is near.
func (s Session) noAdapter() error {
	cfg := s.Project.Config
	near := outcome.Closest(s.Adapter, cfg.Order)
	next := s.command("cassette", "learn", "--help")
	if near != "" {
		next = s.command(append([]string{"cassette", "learn", "--adapter", near}, ScenarioFlags(s.Scenarios)...)...)
	}
	return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: adapter %q is not declared in %s", s.Adapter, s.Adapter, cfg.Path),
		Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters." + s.Adapter, Message: "not declared",
			Expected: "one of: " + strings.Join(sortedKeys(cfg.Adapters), ", "), Suggestion: outcome.Suggest(s.Adapter, cfg.Order)}},
		NextStep: next}
}

// NextStep is the command to run after the session: learn --apply what it
// proposes, else verify the adapter's cassettes.
func (s Session) NextStep(out *Outcome, applied bool) string {
	if out.Changed() && !applied {
		return s.command(append(append([]string{"cassette", "learn", "--adapter", s.Adapter}, ScenarioFlags(s.Scenarios)...), "--apply")...)
	}
	return s.command("cassette", "verify", filepath.Join(s.Project.Config.CassetteDir(), s.Adapter))
}

// ScenarioFlags are the --scenario flags of scenarios ss, for a command
// that learns the same scenarios again.
func ScenarioFlags(ss []string) []string {
	var out []string
	for _, sc := range ss {
		out = append(out, "--scenario", sc)
	}
	return out
}

// command is the cassette command of words in this project: it names the
// config when it is not the default one, so that it runs as printed.
func (s Session) command(words ...string) string {
	return nextstep.Command(s.Project.Config.Path, words...)
}

// unsafe says why a cassette is not recorded again, and the command that
// would: a mutating scenario, or a call that may change the real service.
func (s Session) unsafe(a *cfgschema.Adapter, c *cassettes.Cassette) (why, next string) {
	again := s.command("cassette", "learn", "--adapter", s.Adapter, "--scenario", c.Scenario, "--rerecord-unsafe")
	if c.Mutating && !(a.AllowMutating && s.Unsafe) {
		return fmt.Sprintf("scenario mutates the real service (mutating: true): not re-recorded (needs adapters.%s.allow_mutating: true and --rerecord-unsafe)", s.Adapter), again
	}
	if s.Unsafe || c.Kind == cfgschema.KindCLI {
		return "", "" // a command not marked mutating only reads
	}
	if method, _, ok := c.UnsafeRequest(); ok {
		return "not re-recorded: it would send " + method + ", which may change the real service (learn repeats only GET, HEAD and OPTIONS unless --rerecord-unsafe)", again
	}
	return "", ""
}

// repeat records old Repeat times, Interval apart, each from a new client
// of the real side; the clients are released when the last one is made.
func (s Session) repeat(ctx context.Context, old *cassettes.Cassette) ([]*cassettes.Cassette, error) {
	n := cmp.Or(s.Repeat, 3)
	var recs []*cassettes.Cassette
	var held []func()
	defer func() {
		for _, release := range held {
			release()
		}
	}()
	for i := range n {
		if i > 0 && s.Interval > 0 {
			if err := s.sleep(ctx, s.Interval); err != nil {
				return nil, err
			}
		}
		c, release, err := s.Record(ctx, old)
		if release != nil {
			held = append(held, release)
		}
		if err != nil {
			return nil, err
		}
		s.logf("%s: recorded %d of %d", old.ID(), i+1, n)
		recs = append(recs, c)
	}
	return recs, nil
}

func (s Session) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s Session) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}

// Apply writes the learned cassette.yaml (atomically, holding the locks of
// the file and of the adapter's cassettes), then records each of the
// adapter's cassettes that is safe to repeat once more and saves it with
// the adapter's new normalizers (they are the adapter's, so every
// cassette of it carries them, not only those where a place varied).
func (s Session) Apply(ctx context.Context, out *Outcome) error {
	if !out.Changed() {
		return nil
	}
	cfg := s.Project.Config
	dir := filepath.Join(cfg.CassetteDir(), s.Adapter)
	lock, err := workspace.LockAdapter(cfg.Dir, dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	cfgLock, err := workspace.LockAdapter(cfg.Dir, cfg.Path)
	if err != nil {
		return err
	}
	defer cfgLock.Unlock()
	if now, err := os.ReadFile(cfg.Path); err != nil || string(now) != string(out.Old) {
		return &outcome.Error{Reason: outcome.ECfgParse, Message: cfg.Path + " changed while cassette learn ran; nothing was written",
			NextStep: s.command("cassette", "learn", "--adapter", s.Adapter)}
	}
	if err := cassettes.WriteFileAtomic(cfg.Path, out.New, 0o644); err != nil {
		return err
	}
	s.logf("wrote %s", cfg.Path)
	olds, err := s.cassettes()
	if err != nil {
		return err
	}
	for _, old := range olds {
		if why, _ := s.unsafe(cfg.Adapters[s.Adapter], old); why != "" {
			continue
		}
		c, release, err := s.Record(ctx, old)
		if release != nil {
			release()
		}
		if err != nil {
			return err
		}
		c.Normalizers, c.Path = slices.Clone(out.Result.Names), old.Path
		if err := cassettes.Save(c, cassettes.SaveOptions{Credentials: s.Credentials, Root: cfg.Dir}); err != nil {
			return err
		}
		s.logf("recorded %s again with the learned normalizers", old.Path)
	}
	return nil
}
