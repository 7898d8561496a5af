package verify_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// TestInProcessFakeIsSkipped: an adapter whose fake lives only in a test
// runner's process (fake.in_process, no command, no base_url) has nothing
// for verify to start: its cases are skipped, saying where they are
// verified, while the other adapters' cases run, all in plan order; given
// an in-process target (as cassettetest gives one), its cases run.
func TestInProcessFakeIsSkipped(t *testing.T) {
	cfg, list, reg := demo(t)
	greet := *cfg.Adapters["greet"]
	greet.Fake.Command, greet.Fake.Build, greet.Fake.InProcess = nil, nil, true
	cfg.Adapters["greet"] = &greet
	// greet's cases and one of petstore's (the store is stateful: one case
	// per fresh store).
	cases, err := verify.Plan(cfg, list, verify.Selection{Run: regexp.MustCompile(`^(greet/.*|petstore/list-empty)$`)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(store.New())
	defer srv.Close()
	opts := verify.Options{Config: cfg, Normalizers: reg, HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}}}
	o := verify.Run(context.Background(), cases, opts)
	if o.Err != nil {
		t.Fatalf("run error: %v", o.Err)
	}
	var skipped, passed int
	for i, r := range o.Results {
		if r.Case.ID() != cases[i].ID() {
			t.Fatalf("result %d is %s, want %s: plan order lost", i, r.Case.ID(), cases[i].ID())
		}
		switch {
		case r.Case.Cassette.Adapter == "greet" && r.Status == verdict.StatusSkipped:
			skipped++
		case r.Case.Cassette.Adapter != "greet" && r.Status == verdict.StatusPass:
			passed++
		default:
			t.Errorf("%s: %s %s", r.Case.ID(), r.Status, r.Message)
		}
	}
	if skipped == 0 || passed == 0 {
		t.Fatalf("%d skipped, %d passed: want greet's cases skipped and petstore's passed", skipped, passed)
	}
	if run := o.Report(cfg, verify.Meta{}); run.Exit() != 0 || run.Counts().Skipped != skipped {
		t.Errorf("the run: exit %d, %+v", run.Exit(), run.Counts())
	}

	opts.CLI = map[string]verify.CLITarget{"greet": greetCLI(nil)}
	var greets []verify.Case
	for _, c := range cases {
		if c.Cassette.Adapter == "greet" {
			greets = append(greets, c)
		}
	}
	for _, r := range verify.Run(context.Background(), greets, opts).Results {
		if r.Status != verdict.StatusPass {
			t.Errorf("with an in-process target, %s: %s %s", r.Case.ID(), r.Status, r.Message)
		}
	}
}
