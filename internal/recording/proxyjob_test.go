package recording

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestProxyJobWithoutTheProcess: `cassette proxy`'s pipeline is reached
// without the binary: its flags are checked before the project is loaded,
// and a replay of a cassette that is not there names the recording that
// makes it, with this run's upstream.
func TestProxyJobWithoutTheProcess(t *testing.T) {
	loaded := false
	load := func() (*workspace.Project, error) { loaded = true; return nil, nil }
	bad := &ProxyJob{Mode: "replay", Cassette: "c.yaml", MatchBody: "raw", Match: MatchFlags{Sequence: "twice"}, Load: load}
	if ce := outcome.AsError(bad.Run(context.Background())); ce.Reason != outcome.EUsage || ce.NextStep != "cassette proxy --help" || loaded {
		t.Fatalf("--sequence twice: %+v (project loaded: %v), want E_USAGE naming proxy's help before the project loads", ce, loaded)
	}
	path := filepath.Join(t.TempDir(), "s.yaml")
	j := &ProxyJob{Mode: "replay", Cassette: path, Upstream: "http://api.x.test", MatchBody: "raw", Load: load, Out: io.Discard, Log: io.Discard}
	ce := outcome.AsError(j.Run(context.Background()))
	if want := "cassette proxy --mode record --cassette " + path + " --upstream http://api.x.test"; ce.Reason != outcome.ECassetteNotFound || ce.NextStep != want || !loaded {
		t.Fatalf("replay of no cassette: %+v, want E_CASSETTE_NOT_FOUND with next step %q", ce, want)
	}
}
