package recording

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// The paths of a RecordJob without a command: the declared scenarios, or
// a cassette again from its own input.

// recordScenarios records the scenarios the adapter declares (the one
// --scenario names, or all).
func (j *RecordJob) recordScenarios(ctx context.Context, s *Session) error {
	var scen []Scenario
	for _, sc := range s.Adapter.Scenarios {
		if j.Scenario == "" || sc.Name == j.Scenario {
			scen = append(scen, Scenario{Name: sc.Name, Method: sc.Method, Path: sc.Path, Headers: sc.Headers, Body: sc.Body, Replayable: sc.Replayable, Mutating: sc.Mutating, Status: sc.Status})
		}
	}
	if len(scen) == 0 {
		return j.noScenario(s)
	}
	paths := make([]string, len(scen))
	for i, sc := range scen {
		paths[i] = s.Path(sc.Name)
	}
	unlock, err := s.Lock(j.again(nil), paths...)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := s.RecordScenarios(ctx, ScenariosRun{Scenarios: scen, BaseURL: j.BaseURL, AttemptTimeout: j.AttemptTimeout, AgainArgs: j.againArgs()})
	if s.Interrupted() != nil {
		return nil // interrupted: nothing is saved (Run says so)
	}
	for _, r := range recs {
		if serr := j.save(s, r.Cassette, s.Path(r.Cassette.Scenario)); serr != nil {
			return serr
		}
	}
	return err
}

// noScenario is the error of an adapter that declares no scenario (or not
// the one --scenario names) and holds no cassette of it to record again.
func (j *RecordJob) noScenario(s *Session) error {
	a, cfg := s.Adapter, j.p.Config
	names := make([]string, 0, len(a.Scenarios))
	for _, sc := range a.Scenarios {
		names = append(names, sc.Name)
	}
	msg := fmt.Sprintf("adapter %s declares no scenario", j.Adapter)
	if j.Scenario != "" {
		msg = fmt.Sprintf("adapter %s declares no scenario %q and %s holds no cassette to record again", j.Adapter, j.Scenario, s.Path(j.Scenario))
		if len(names) > 0 {
			msg += " (declared: " + strings.Join(names, ", ") + ")"
		}
	}
	return &outcome.Error{Reason: outcome.EUsage, Message: msg,
		Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters." + j.Adapter + ".scenarios"), Field: "adapters." + j.Adapter + ".scenarios", Message: "add scenarios here", Expected: "- {name: list, method: GET, path: /v1/things}", Suggestion: outcome.Suggest(j.Scenario, names)}},
		NextStep: nextstep.RecordDeclared(cfg, j.Adapter, j.Scenario, names)}
}

// rerecordExisting records cassettes/<adapter>/<scenario>.yaml again from
// its own input, as refresh does, when no command is given and the adapter
// declares no such scenario (or declares it without a real.base_url): the
// command every replay miss prints works for a cassette recorded with a
// command, through the proxy, or with --base-url too.
func (j *RecordJob) rerecordExisting(ctx context.Context, s *Session) (bool, error) {
	a := s.Adapter
	declared := a.Kind == cfgschema.KindHTTP && slices.ContainsFunc(a.Scenarios, func(sc cfgschema.Scenario) bool { return sc.Name == j.Scenario })
	if j.Scenario == "" || (declared && cmp.Or(j.BaseURL, a.Real.BaseURL) != "") {
		return false, nil // a declared scenario is recorded from cassette.yaml when it knows where
	}
	path := s.Path(j.Scenario)
	if _, err := os.Stat(path); err != nil {
		return false, nil
	}
	unlock, err := s.Lock(j.again(nil), path)
	if err != nil {
		return true, err
	}
	defer unlock()
	old, err := cassettes.Load(path, cassettes.LoadOptions{Config: j.p.Config})
	if err != nil || (old.Kind == cfgschema.KindCLI && old.Input == nil) || (old.Kind != cfgschema.KindCLI && len(old.Interactions) == 0) {
		return false, nil
	}
	rec, err := s.RecordAgain(ctx, old, AgainRun{BaseURL: j.BaseURL, Again: j.command("cassette", "record", "--adapter", j.Adapter, "--scenario", j.Scenario),
		AgainArgs: j.againArgs(), AttemptTimeout: j.AttemptTimeout, CLITimeout: j.Timeout, AllowProjectRepo: j.AllowProjectRepo}) // --timeout bounds these too
	if s.Interrupted() != nil {
		return true, nil // interrupted: nothing is saved (Run says so)
	}
	if err != nil {
		return true, err
	}
	fmt.Fprintf(j.Err, "recording %s again from its own input\n", path)
	return true, j.save(s, rec.Cassette, path)
}

// againArgs are the flags of this run that a next step must repeat.
func (j *RecordJob) againArgs() string {
	var b strings.Builder
	if j.BaseURL != "" {
		b.WriteString(" --base-url " + outcome.ShellJoin([]string{j.BaseURL}))
	}
	if j.UpstreamCA != "" {
		b.WriteString(" --upstream-ca " + outcome.ShellJoin([]string{j.UpstreamCA}))
	}
	if j.AttemptTimeout > 0 {
		b.WriteString(" --timeout " + j.AttemptTimeout.String())
	}
	return b.String()
}
