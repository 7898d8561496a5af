package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// Meta is what a report needs besides the outcome.
type Meta struct {
	Tool    verdict.Tool
	Command string // "verify" unless a caller (refresh) says otherwise
	Shard   string
}

// Report turns an outcome into the report package's run model.
func (o *Outcome) Report(cfg *cfgschema.Config, m Meta) *verdict.Run {
	cmd := m.Command
	if cmd == "" {
		cmd = "verify"
	}
	base, rs := RepoRoot(cfg.Dir), newResolver()
	run := &verdict.Run{Tool: m.Tool, Command: cmd, Mode: "replay", Suite: suiteName(cfg), ConfigPath: rs.rel(base, cfg.Path),
		Started: o.Started, Finished: o.Finished, Shard: m.Shard, Err: repoRelative(base, atConfig(cfg, o, o.Err)), Seeds: verdict.FileOrder()}
	if data, err := os.ReadFile(cfg.Path); err == nil {
		run.ConfigBytes = data
	}
	for name, a := range cfg.Adapters {
		if a != nil && a.Coverage.MinModelled != nil {
			if run.MinModelled == nil {
				run.MinModelled = map[string]*float64{}
			}
			run.MinModelled[name] = a.Coverage.MinModelled
		}
	}
	for _, r := range o.Results {
		path := rs.rel(base, r.Case.Cassette.Path)
		if src := r.Case.Cassette.Source; src.SHA256 != "" { // the bytes that were loaded and compared
			run.Inventory = append(run.Inventory, verdict.InventoryItem{Path: path, SHA256: src.SHA256, Bytes: src.Size})
		}
		c := verdict.Case{Adapter: r.Case.Cassette.Adapter, Scenario: r.Case.Cassette.Scenario, CassettePath: path,
			Status: r.Status, Reason: r.Reason, Message: r.Message, Drifts: r.Drifts, Duration: r.Duration, Actions: r.Actions,
			Recorded: r.Recorded, Retries: r.Retries, Modelled: r.Modelled}
		if r.Status == verdict.StatusPass {
			c.Reason = ""
		}
		if r.FakeLog != "" {
			art := verdict.Artifact{Name: r.Case.Cassette.Adapter + " fake log", Kind: "log", Path: r.FakeLog}
			if r.Reason == outcome.EFakeUnavailable {
				// The fake's start is the action that failed; its log is
				// what that action left.
				var argv []string
				if a := cfg.Adapters[r.Case.Cassette.Adapter]; a != nil {
					argv = a.Fake.Command
				}
				c.Actions = append(c.Actions, verdict.Action{Kind: "proc", ID: "fake-start", Argv: argv, Err: firstLine(r.Message), ErrKind: "fake_unavailable"})
				art.Action = "fake-start"
			}
			c.Artifacts = append(c.Artifacts, art)
		}
		if q := r.Quarantine; q != nil {
			c.Quarantine = &verdict.QuarantineInfo{Category: q.Category, Owner: q.Owner, Quarantined: q.Quarantined.Time,
				Expires: q.Expires.Add(24*time.Hour - time.Nanosecond), Issue: q.Bead, Evidence: q.Evidence, Repro: q.Repro, Reason: q.Reason, RemoveWhen: q.RemoveWhen}
		}
		run.Cases = append(run.Cases, c)
	}
	return run
}

// ErrorReport is the run model of a verify that failed before any case
// ran (no config, a bad flag): its config path and the files of its
// problems are made relative to the repository root, as in every report.
func ErrorReport(configPath string, tool verdict.Tool, e *outcome.Error, now time.Time) *verdict.Run {
	dir := filepath.Dir(configPath)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = "."
	}
	base := RepoRoot(dir)
	abs, err := filepath.Abs(filepath.Dir(configPath))
	suite := "cassette"
	if err == nil {
		suite = filepath.Base(abs)
	}
	run := &verdict.Run{Tool: tool, Command: "verify", Suite: suite, ConfigPath: rel(base, configPath),
		Err: repoRelative(base, e), Started: now, Finished: now, Seeds: verdict.FileOrder()}
	// An invalid config has a digest too (policy_pack_digest); one that
	// holds a credential is not carried into the reports.
	if data, err := os.ReadFile(configPath); err == nil && (e == nil || e.Reason != outcome.ESecretLeak) {
		run.ConfigBytes = data
	}
	return run
}

// atConfig returns e with each problem that points into a fake's log (a
// file under the report directory, which the repository does not hold)
// moved to the config line that declares that fake; the message keeps the
// log's path. A copy; e itself is not changed.
func atConfig(cfg *cfgschema.Config, o *Outcome, e *outcome.Error) *outcome.Error {
	if e == nil || len(e.Problems) == 0 {
		return e
	}
	owner := map[string]string{} // log path → adapter
	for name, lp := range o.FakeLogs {
		owner[filepath.Clean(lp)] = name
	}
	for _, r := range o.Results {
		if r.FakeLog != "" {
			owner[filepath.Clean(r.FakeLog)] = r.Case.Cassette.Adapter
		}
	}
	cp := *e
	cp.Problems = append([]outcome.Problem(nil), e.Problems...)
	for i, p := range cp.Problems {
		name, ok := owner[filepath.Clean(p.File)]
		if p.File == "" || !ok {
			continue
		}
		field := "adapters." + name + ".fake"
		cp.Problems[i] = outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field,
			Message: p.File + ": " + p.Message, Expected: p.Expected, Suggestion: p.Suggestion}
	}
	return &cp
}

// repoRelative returns e with the files of its problems relative to the
// repository root base (a copy; e itself is not changed).
func repoRelative(base string, e *outcome.Error) *outcome.Error {
	if e == nil || len(e.Problems) == 0 {
		return e
	}
	cp := *e
	cp.Problems = append([]outcome.Problem(nil), e.Problems...)
	for i, p := range cp.Problems {
		if p.File != "" {
			cp.Problems[i].File = rel(base, p.File)
		}
	}
	return &cp
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func suiteName(cfg *cfgschema.Config) string {
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return "cassette"
	}
	return filepath.Base(abs)
}

// RelPath renders path relative to base (the repository root from
// [RepoRoot]), slash-separated, both sides resolved through symlinks.
func RelPath(base, path string) string { return rel(base, path) }

// rel renders path relative to the project directory, slash-separated.
func rel(base, path string) string { return newResolver().rel(base, path) }

// resolver resolves paths as rel does, the working directory read once and
// each directory's symlinks once: a report of 10,000 cases resolved every
// component of every cassette's path (a Getwd and an lstat each), 10% of a
// `cassette check`.
//
// A file that is no symlink, in a directory at or below the base, is that
// directory's relative path and its name: each directory's is worked out
// once (filepath.Rel of every cassette's path was most of a report of
// 10,000 cases).
type resolver struct {
	wd             string
	dirs           map[string]string // directory → its real path ("" for none)
	base, baseReal string            // the last base and its real path
	under          map[string]string // real directory → relative to baseReal, slash-separated ("" when not at or below it)
}

func newResolver() *resolver {
	wd, _ := os.Getwd()
	return &resolver{wd: wd, dirs: map[string]string{}}
}

func (rs *resolver) rel(base, path string) string {
	// Both sides resolved the same way: git reports the top with symlinks
	// resolved, while the working directory may be reached through one.
	if rs.baseReal == "" || rs.base != base {
		rs.base, rs.baseReal = base, rs.real(base)
		rs.under = map[string]string{}
	}
	p := rs.abs(path)
	d, name, ok := rs.file(p)
	if ok {
		r, seen := rs.under[d]
		if !seen {
			if x, err := filepath.Rel(rs.baseReal, d); err == nil && x != ".." && !strings.HasPrefix(x, ".."+string(filepath.Separator)) {
				r = filepath.ToSlash(x)
			}
			rs.under[d] = r
		}
		switch r {
		case "":
		case ".":
			return name
		default:
			return r + "/" + name
		}
		path = filepath.Join(d, name) // outside the base: its real path, as real gives it
	} else {
		path = rs.resolve(p)
	}
	if r, err := filepath.Rel(rs.baseReal, path); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// abs is p absolute (against the working directory read once) and clean.
func (rs *resolver) abs(p string) string {
	if !filepath.IsAbs(p) && rs.wd != "" {
		p = filepath.Join(rs.wd, p)
	}
	return filepath.Clean(p)
}

// file returns the real directory and the name of the clean path p when
// it is a file that is no symlink (ok false otherwise, or for the root).
func (rs *resolver) file(p string) (dir, name string, ok bool) {
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return "", "", false
	}
	if name = filepath.Base(p); name == string(filepath.Separator) || name == "." || name == ".." {
		return "", "", false
	}
	dir = rs.dir(filepath.Dir(p))
	return dir, name, dir != ""
}

func (rs *resolver) real(p string) string {
	p = rs.abs(p)
	// A file that is no symlink is where its directory really is.
	if d, name, ok := rs.file(p); ok {
		return filepath.Join(d, name)
	}
	return rs.resolve(p)
}

// resolve is the real path of the absolute, clean p when file refused it
// (a symlink, a directory's root, or a path whose directory is gone).
func (rs *resolver) resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d := rs.dir(filepath.Dir(p)); d != "" { // p itself may not exist
		return filepath.Join(d, filepath.Base(p))
	}
	return p
}

func (rs *resolver) dir(d string) string {
	r, ok := rs.dirs[d]
	if !ok {
		r, _ = filepath.EvalSymlinks(d)
		rs.dirs[d] = r
	}
	return r
}

// RepoRoot is the top of the git work tree holding dir, or dir itself
// outside one. Report paths are relative to it, as GitHub code scanning
// resolves SARIF locations against the repository root.
func RepoRoot(dir string) string {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return dir
	}
	return strings.TrimSpace(string(out))
}
