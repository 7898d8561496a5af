// Package cassettetest verifies in-process fakes against cassettes from
// `go test`: each cassette becomes a subtest that feeds the cassette's input
// to the fake and fails with the normalized diff when the fake's output
// differs from the recorded one.
//
//	func TestFakeGitHub(t *testing.T) {
//		cassettetest.VerifyHTTP(t, fakegithub.New(), "testdata/cassettes/github")
//	}
package cassettetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// CLIFunc is an in-process CLI fake: it runs with the recorded arguments,
// stdin and environment (NAME=value for the recorded names that are set) and
// returns the exit code.
type CLIFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int

// VerifyHTTP replays every cassette under dir against h, one subtest per
// cassette. h's state is shared by the subtests, in scenario order; use
// VerifyHTTPFresh for a fresh fake per cassette.
func VerifyHTTP(t *testing.T, h http.Handler, dir string) {
	t.Helper()
	VerifyHTTPFresh(t, func() http.Handler { return h }, dir)
}

// VerifyHTTPFresh is VerifyHTTP with a new handler for each cassette.
func VerifyHTTPFresh(t *testing.T, newHandler func() http.Handler, dir string) {
	t.Helper()
	each(t, dir, cfgschema.KindHTTP, func(t *testing.T, c verify.Case, opts verify.Options) {
		srv := httptest.NewServer(newHandler())
		defer srv.Close()
		opts.HTTP = map[string]verify.HTTPTarget{c.Cassette.Adapter: {BaseURL: srv.URL, Client: srv.Client()}}
		check(t, c, opts)
	})
}

// Result is what one cassette found against the fake, in the words of
// `cassette verify`'s reports.
type Result struct {
	Status  string // "pass", "fail", "error" or "skipped", as summary.json says
	Reason  string // a case that did not pass: its reason code (E_CONTRACT_DRIFT, …)
	Message string // a case that did not pass: one line, what went wrong
	Drifts  []Drift
	// Fields, Modelled and RequiredMissing count, for a cassette compared
	// in modelled mode (docs/modelled.md), its response fields, those the
	// fake models, and the required ones it leaves out; all 0 otherwise.
	Fields, Modelled, RequiredMissing int
}

// Drift is one difference between the fake's answer and the cassette.
type Drift struct {
	Class   string // "status", "header", "body", "stdout", "exit_code", …: the SARIF rule
	Message string
}

// ResultsHTTPFresh runs every HTTP cassette under dir against a new
// handler each, as VerifyHTTPFresh does, and returns the results by case
// id (adapter/scenario) instead of failing: for a test that holds the
// known drifts of a fake it does not own (a third-party fake's bugs) to an
// exact set, and what it models (Result.Modelled).
func ResultsHTTPFresh(t *testing.T, newHandler func() http.Handler, dir string) map[string]Result {
	t.Helper()
	out := map[string]Result{}
	each(t, dir, cfgschema.KindHTTP, func(t *testing.T, c verify.Case, opts verify.Options) {
		srv := httptest.NewServer(newHandler())
		defer srv.Close()
		opts.HTTP = map[string]verify.HTTPTarget{c.Cassette.Adapter: {BaseURL: srv.URL, Client: srv.Client()}}
		out[c.ID()] = result(verify.Run(context.Background(), []verify.Case{c}, opts).Results[0])
	})
	return out
}

// result is r as a Result.
func result(r verify.Result) Result {
	out := Result{Status: string(r.Status), Reason: string(r.Reason), Message: r.Message}
	for _, d := range r.Drifts {
		out.Drifts = append(out.Drifts, Drift{Class: d.Class, Message: d.Message})
	}
	if m := r.Modelled; m != nil {
		out.Fields, out.Modelled, out.RequiredMissing = m.Fields, m.Modelled, m.RequiredMissing
	}
	return out
}

// VerifyCLI runs every CLI cassette under dir against fn, one subtest per
// cassette.
func VerifyCLI(t *testing.T, fn CLIFunc, dir string) {
	t.Helper()
	each(t, dir, cfgschema.KindCLI, func(t *testing.T, c verify.Case, opts verify.Options) {
		opts.CLI = map[string]verify.CLITarget{c.Cassette.Adapter: func(ctx context.Context, inv verify.Invocation) (cassettes.Output, error) {
			var stdout, stderr bytes.Buffer
			code := fn(ctx, inv.Args, bytes.NewReader(inv.Stdin), &stdout, &stderr, inv.Env)
			return cassettes.Output{Stdout: cassettes.Body(stdout.Bytes()), Stderr: cassettes.Body(stderr.Bytes()), ExitCode: code}, nil
		}}
		check(t, c, opts)
	})
}

// each loads the cassettes of one kind under dir and runs fn for each, in
// the project they belong to (workspace.Find: the cassette.yaml in
// dir or up to three parents, so that the adapters' normalizers, contract
// headers and redaction apply as they do for `cassette verify`; without
// one, each cassette's own normalizers).
func each(t *testing.T, dir string, kind cfgschema.Kind, fn func(*testing.T, verify.Case, verify.Options)) {
	t.Helper()
	cases, opts, err := plan(dir, kind, os.LookupEnv)
	if err != nil {
		t.Fatalf("cassettetest: %s", failure(err))
	}
	for _, cs := range cases {
		t.Run(cs.Cassette.Scenario, func(t *testing.T) { fn(t, cs, opts) })
	}
}

// plan loads the cassettes of one kind under dir with the options of the
// project they belong to, as `cassette verify` loads them (the same load
// options, so the same leak scan of the declared credentials set in the
// environment, read through lookup), and returns them as cases with the
// project's verify options. An adapter the project does not declare (or a
// directory without cassette.yaml) is judged by its cassettes' own
// normalizers.
func plan(dir string, kind cfgschema.Kind, lookup func(string) (string, bool)) ([]verify.Case, verify.Options, error) {
	p, err := workspace.Find(dir)
	if err != nil {
		return nil, verify.Options{}, err
	}
	opts := verify.ProjectOptions(p, lookup)
	opts.Jobs = 1
	list, err := cassettes.LoadTree([]string{dir}, p.LoadOptions(opts.Credentials))
	if err != nil {
		return nil, verify.Options{}, err
	}
	cfg := p.Config
	var cases []verify.Case
	for _, c := range list {
		if c.Kind != kind {
			continue
		}
		if _, ok := cfg.Adapters[c.Adapter]; !ok {
			cfg.Adapters[c.Adapter] = &cfgschema.Adapter{Kind: kind, Normalizers: c.Normalizers}
			cfg.Order = append(cfg.Order, c.Adapter)
		}
		cases = append(cases, verify.Case{Cassette: c, Adapter: cfg.Adapters[c.Adapter]})
	}
	if len(cases) == 0 {
		return nil, verify.Options{}, fmt.Errorf("no %s cassette under %s", kind, dir)
	}
	return cases, opts, nil
}

// failure is err as the cassette command prints it: `error[REASON]: `
// and the message, so that a refused project reads the same in go test.
func failure(err error) string {
	var ce *outcome.Error
	if errors.As(err, &ce) {
		return "error[" + string(ce.Reason) + "]: " + ce.Error()
	}
	return err.Error()
}

// check runs one case and reports its drift as a test failure.
func check(t *testing.T, c verify.Case, opts verify.Options) {
	t.Helper()
	if msg := verifyOne(c, opts); msg != "" {
		t.Error(msg)
	}
}

// verifyOne runs one case and returns what is wrong with the fake, or "".
func verifyOne(c verify.Case, opts verify.Options) string {
	o := verify.Run(context.Background(), []verify.Case{c}, opts)
	r := o.Results[0]
	switch r.Status {
	case verdict.StatusPass:
		return ""
	case verdict.StatusFail:
		return fmt.Sprintf("%s drifted from %s:\n%s", c.ID(), c.Cassette.Path, r.Explain)
	default:
		return fmt.Sprintf("%s: %s: %s", c.ID(), r.Reason, r.Message)
	}
}
