package cassettetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettetest"
	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
)

// The demo's pet store fake, in process, against the demo's cassettes
// (recorded from the demo's real pet store service).
func TestPetstoreFake(t *testing.T) {
	cassettetest.VerifyHTTPFresh(t, func() http.Handler { return store.New() }, "../examples/demo/cassettes/petstore")
}

// A CLI fake written as a function, against the demo's greet cassettes.
func TestGreetFake(t *testing.T) {
	cassettetest.VerifyCLI(t, greet, "../examples/demo/cassettes/greet")
}

func greet(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer, _ []string) int {
	asJSON := false
	var names []string
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "greet: unknown flag %s\n", a)
			return 2
		default:
			names = append(names, a)
		}
	}
	for _, n := range names {
		if asJSON {
			b, _ := json.Marshal(map[string]string{"greeting": "Hello, " + n + "!", "name": n})
			fmt.Fprintln(stdout, string(b))
		} else {
			fmt.Fprintf(stdout, "Hello, %s!\n", n)
		}
	}
	return 0
}

// TestRedactNamesProject: a project's redact.names apply to VerifyCLI as
// they do to `cassette verify` (cmd/cassette's TestRedactNamesProject runs
// the same project): the fake's live tenant_pin is redacted before it is
// compared with the recorded [REDACTED].
func TestRedactNamesProject(t *testing.T) {
	cassettetest.VerifyCLI(t, func(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer, _ []string) int {
		fmt.Fprintln(stdout, `{"name":"ada","tenant_pin":"abc123xyz789"}`)
		return 0
	}, "testdata/redact-names/cassettes/tool")
}

// ResultsHTTPFresh returns each case's result instead of failing: the pet
// store fake passes every cassette; one that answers 500 to everything
// has each case's drift in its result, and the test itself does not fail.
func TestResultsHTTPFresh(t *testing.T) {
	res := cassettetest.ResultsHTTPFresh(t, func() http.Handler { return store.New() }, "../examples/demo/cassettes/petstore")
	if len(res) < 4 {
		t.Fatalf("%d results", len(res))
	}
	for id, r := range res {
		if r.Status != "pass" {
			t.Errorf("%s: %s %s", id, r.Status, r.Message)
		}
	}
	broken := cassettetest.ResultsHTTPFresh(t, func() http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) })
	}, "../examples/demo/cassettes/petstore")
	if r := broken["petstore/list-empty"]; r.Status != "fail" || len(r.Drifts) == 0 || r.Drifts[0].Class != "status" {
		t.Errorf("a fake answering 500: %+v", r)
	}
}
