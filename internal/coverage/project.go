package coverage

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// AnalyzeProject is `cassette coverage` on a loaded project: it reads the
// observations in dir, redacts them with the project's redaction (one
// session over all of them, so that a value learned in one call is
// scrubbed from every call), loads the project's cassettes with its own
// load options (the ones verify loads with), and holds the one against the
// other (Analyze). Observations that cannot be read or used, and settings
// that do not fit, are errors naming what to run next.
func AnalyzeProject(p *workspace.Project, dir string, opts Options) (*Report, error) {
	cfg := p.Config
	next := cmp.Or(opts.ObserveStep, outcome.Command("cassette", "observe", "--help"))
	current, runs, err := CurrentRuns(dir)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read the observations", Err: err, NextStep: outcome.Command("ls", "-l", dir)}
	}
	var obs []Located
	var probs []outcome.Problem
	for _, run := range current {
		o, ps, err := ReadDir(run.Dir)
		if err != nil {
			return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read the observations", Err: err, NextStep: outcome.Command("ls", "-l", run.Dir)}
		}
		if obs == nil {
			obs = o // one run, most often: no copy of its calls
		} else {
			obs = append(obs, o...)
		}
		probs = append(probs, ps...)
	}
	if len(current) > 0 && opts.Log != nil {
		fmt.Fprintf(opts.Log, "observations: %s\n", RunNote(cfg.Dir, current, runs))
	}
	if len(probs) > 0 {
		return nil, &outcome.Error{Reason: outcome.EObservationInvalid, Problems: probs,
			Message:  fmt.Sprintf("%d lines of %s are not observations of format %d (docs/concepts/coverage.md, \"The observation format\"): observe again, or mend their writer", len(probs), dir, FormatVersion),
			NextStep: next}
	}
	if len(obs) == 0 {
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: "no calls observed in " + dir + ": run the tests (go test, pytest, npm test) under cassette observe first",
			NextStep: next}
	}
	creds := p.Credentials(os.LookupEnv)
	redactAll(obs, redact.New(p.Redact, creds))
	list, err := loadCorpus(p, creds)
	if err != nil {
		return nil, err
	}
	opts.Kinds = kind.Of(p.Kinds())
	rep, probs := Analyze(cfg, list, obs, opts)
	if len(probs) > 0 {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "the coverage settings or the observed calls do not fit " + cfg.Path, Problems: probs,
			NextStep: outcome.Command("cassette", "validate", "--config", cfg.Path)}
	}
	if rep.Modelled, err = readModelled(cfg, list, opts); err != nil {
		return nil, err
	}
	return rep, nil
}

// redactAll redacts the calls in one session, so that a value learned in
// one call is scrubbed from all: the calls redacted before the last value
// was learned are redacted again (those after it had every value: with
// nothing learned, one pass; two passes over 100k calls were 7% of
// coverage's time).
func redactAll(obs []Located, red *redact.Redactor) {
	stale, known := 0, red.Known()
	for i := range obs {
		obs[i].Call = Redact(obs[i].Call, red)
		if k := red.Known(); k != known {
			stale, known = i+1, k
		}
	}
	for i := range obs[:stale] {
		obs[i].Call = Redact(obs[i].Call, red)
	}
}

// loadCorpus loads every cassette of the project; a project without a
// cassettes directory has none (coverage then says which adapters need one).
func loadCorpus(p *workspace.Project, creds map[string]string) ([]*cassettes.Cassette, error) {
	dir := p.Config.CassetteDir()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return cassettes.LoadTree([]string{dir}, p.LoadOptions(creds))
}

// RunNote says which runs of observations coverage reads, their folders
// relative to the project directory.
func RunNote(projectDir string, current []Run, runs int) string {
	where := func(r Run) string {
		rel, err := filepath.Rel(projectDir, r.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = r.Dir
		}
		return outcome.Printable(rel)
	}
	latest := current[0]
	when := latest.Latest.UTC().Format(time.RFC3339)
	note := fmt.Sprintf("%s (the only run, last written %s)", where(latest), when)
	if runs > 1 {
		note = fmt.Sprintf("%s (the latest of %d runs, last written %s", where(latest), runs, when)
		if len(current) > 1 {
			var also []string
			for _, r := range current[1:] {
				also = append(also, where(r))
			}
			note += "; with " + strings.Join(also, ", ") + ", written to during it"
		}
		if left := runs - len(current); left > 0 {
			note += fmt.Sprintf("; %d earlier not counted", left)
		}
		note += ")"
	}
	return note
}
