package refresh

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// methodLog records the method and path of every request a service gets.
type methodLog struct {
	mu   sync.Mutex
	seen []string
}

func (m *methodLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.Method+" "+r.URL.Path)
		m.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (m *methodLog) reset() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.seen
	m.seen = nil
	return out
}

// TestDryRunSendsOnlyReads: a dry run re-records the read-only HTTP
// cassettes (GET, HEAD, OPTIONS) and nothing that may change the real
// service: a PUT that is not marked mutating is listed as not re-recorded,
// with the command that re-runs it, and never reaches the service (it
// used to: --dry-run said it touched "neither the remote nor the forge",
// and ran the PUT). DryRunUnsafe runs it; a real cycle runs it.
func TestDryRunSendsOnlyReads(t *testing.T) {
	p := newProject(t)
	var log methodLog
	p.real.Config.Handler = log.wrap(p.real.Config.Handler)
	put := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "petstore", Scenario: "rename-pet", Kind: cfgschema.KindHTTP,
		Path: filepath.Join(p.dir, "cassettes", "petstore", "rename-pet.yaml"),
		Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "PUT", URL: p.real.URL + "/v1/pets/1", Body: `{"name":"Rex"}`},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"pets":[]}`}}}}
	if err := cassettes.Save(put, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	runGit(t, p.env, p.dir, "add", ".")
	runGit(t, p.env, p.dir, "commit", "--quiet", "-m", "a PUT")

	r := p.cycle(week0, func(o *Options) { o.DryRun = true })
	if seen := log.reset(); len(seen) != 2 || strings.Join(seen, ",") != "GET /v1/pets,GET /v1/pets" {
		t.Errorf("a dry run sent %v to the real service, want the two GETs only", seen)
	}
	cr := caseOf(t, r, "petstore", "rename-pet")
	if cr.Status != verdict.StatusSkipped || cr.New != nil || !strings.Contains(cr.Message, "PUT /v1/pets/1") ||
		cr.NextStep != "cassette refresh --once --dry-run --rerecord-unsafe --adapter petstore" || !strings.Contains(cr.Message, "--rerecord-unsafe re-runs it against the real service") {
		t.Errorf("the PUT case: %s %q, next %q", cr.Status, cr.Message, cr.NextStep)
	}
	if got := caseOf(t, r, "petstore", "list-pets"); got.Status != verdict.StatusPass || got.New == nil {
		t.Errorf("the GET case was not re-recorded: %s %q", got.Status, got.Message)
	}
	if got := adapterResult(t, r, "petstore").ReplayCommand(); got != "cassette refresh --once --dry-run --rerecord-unsafe --adapter petstore" {
		t.Errorf("replay command %q", got)
	}

	p.cycle(week0, func(o *Options) { o.DryRun, o.DryRunUnsafe = true, true })
	if seen := log.reset(); !strings.Contains(strings.Join(seen, ","), "PUT /v1/pets/1") {
		t.Errorf("--rerecord-unsafe sent %v, want the PUT too", seen)
	}
}

func caseOf(t *testing.T, r *Result, adapter, scenario string) *CaseResult {
	t.Helper()
	for _, cr := range adapterResult(t, r, adapter).Cases {
		if cr.Old.Scenario == scenario {
			return cr
		}
	}
	t.Fatalf("no case %s/%s", adapter, scenario)
	return nil
}
