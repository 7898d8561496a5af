package coverage

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// benchProject writes, as bench/replaybench coverage-project does, a
// project of n cassettes of one GET each (n/10 shapes) and one observe run
// of calls GETs of those shapes by 300 tests.
func benchProject(b *testing.B, n, calls int) (p *workspace.Project, run string) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cassettes", "api"), 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := "version: 1\nadapters:\n  api:\n    kind: http\n    real: {base_url: \"https://api.test\"}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	shapes := max(1, n/10)
	body := `{"id":4711,"name":"widget","owner":{"login":"octocat"},"pad":"` + strings.Repeat("x", 540) + `"}`
	for i := range n {
		c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Kind: cfgschema.KindHTTP,
			Path: filepath.Join(dir, "cassettes", "api", fmt.Sprintf("c-%06d.yaml", i)), Adapter: "api", Scenario: fmt.Sprintf("c-%06d", i),
			Interactions: []cassettes.Interaction{{
				Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: fmt.Sprintf("https://api.test/v1/r%d/items?page=%d", i%shapes, i), Host: "api.test"},
				Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK", ContentLength: int64(len(body)), Body: cassettes.Body(body),
					Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}}},
			}}}
		if err := cassettes.Save(c, cassettes.SaveOptions{SidecarThreshold: -1}); err != nil {
			b.Fatal(err)
		}
	}
	run = filepath.Join(dir, filepath.FromSlash(ObservedDir), RunName(time.Now(), os.Getpid()))
	w, err := OpenWriter(run, "proxy-api", "proxy")
	if err != nil {
		b.Fatal(err)
	}
	for i := range calls {
		c := Call{Method: "GET", URL: fmt.Sprintf("/v1/r%d/items?page=%d", i%shapes, i)}
		if err := w.Write(Observation{Adapter: "api", Kind: cfgschema.KindHTTP, Call: c, Test: fmt.Sprintf("TestItems%d", i%300)}); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	p, err = workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	return p, run
}

// BenchmarkCoverage is bench/compare.sh's coverage row at a tenth of its
// size (1,000 cassettes, 10,000 calls), in its steps: reading the
// observations, redacting them, holding them against the loaded
// cassettes, and the whole of AnalyzeProject (the cassettes' load, which
// validate does too, included).
func BenchmarkCoverage(b *testing.B) {
	p, run := benchProject(b, 1000, 10000)
	obs, _, err := ReadDir(run)
	if err != nil || len(obs) != 10000 {
		b.Fatalf("ReadDir: %d calls, %v", len(obs), err)
	}
	list, err := loadCorpus(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ReadDir(run); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redact", func(b *testing.B) {
		b.ReportAllocs()
		work := make([]Located, len(obs))
		for b.Loop() {
			copy(work, obs)
			redactAll(work, redact.New(p.Redact, nil))
		}
	})
	b.Run("analyze", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, probs := Analyze(p.Config, list, obs, Options{}); len(probs) > 0 {
				b.Fatal(probs)
			}
		}
	})
	b.Run("project", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AnalyzeProject(p, filepath.Dir(run), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
