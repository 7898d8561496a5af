package coverage

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/redact"
)

// AnalyzeProject is `cassette coverage` on a loaded project: it reads the
// observations in dir, redacts them with the project's redaction (one
// session over all of them, so that a value learned in one call is
// scrubbed from every call), loads the project's cassettes with its own
// load options (the ones verify loads with), and holds the one against the
// other (Analyze). Observations that cannot be read or used, and settings
// that do not fit, are errors naming what to run next.
func AnalyzeProject(p *cassettes.Project, dir string, opts Options) (*Report, error) {
	cfg := p.Config
	next := cmp.Or(opts.ObserveStep, outcome.Command("cassette", "observe", "--help"))
	obs, probs, err := ReadDir(dir)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read the observations", Err: err, NextStep: outcome.Command("ls", "-l", dir)}
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
	red := redact.New(p.Redact, creds) // one session: a value learned in one call is scrubbed from all
	for i := range obs {
		obs[i].Call = Redact(obs[i].Call, red)
	}
	for i := range obs { // the calls read before a value was learned
		obs[i].Call = Redact(obs[i].Call, red)
	}
	list, err := loadCorpus(p, creds)
	if err != nil {
		return nil, err
	}
	rep, probs := Analyze(cfg, list, obs, opts)
	if len(probs) > 0 {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "the coverage settings or the observed calls do not fit " + cfg.Path, Problems: probs,
			NextStep: outcome.Command("cassette", "validate", "--config", cfg.Path)}
	}
	return rep, nil
}

// loadCorpus loads every cassette of the project; a project without a
// cassettes directory has none (coverage then says which adapters need one).
func loadCorpus(p *cassettes.Project, creds map[string]string) ([]*cassettes.Cassette, error) {
	dir := p.Config.CassetteDir()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return cassettes.LoadTree([]string{dir}, p.LoadOptions(creds))
}
