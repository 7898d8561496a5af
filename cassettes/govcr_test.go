package cassettes

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"

	vcrcassette "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// TestGoVCRReplaysOurCassette proves the compatibility promise: a cassette
// cassette writes (metadata, a literal-block body, a CRLF body, a binary
// body) loads in go-vcr v4's own recorder and replays byte for byte.
func TestGoVCRReplaysOurCassette(t *testing.T) {
	bodies := map[string]string{
		"/text":   "{\n  \"login\": \"octocat\"\n}\n",
		"/crlf":   "a\r\nb\r\n",
		"/binary": "\x89PNG\r\n\x1a\n\x00\x00\xff",
	}
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	c := &Cassette{Cassette: SchemaVersion, Version: GoVCRVersion, Adapter: "github", Scenario: "mixed", Kind: cfgschema.KindHTTP,
		Normalizers: []string{"headers.volatile"}, RecordedAt: &now, Recorder: &Recorder{Version: "0.1.0", SHA: "abc1234"},
		Path: filepath.Join(t.TempDir(), "github", "mixed.yaml")}
	for i, p := range []string{"/text", "/crlf", "/binary"} {
		c.Interactions = append(c.Interactions, Interaction{ID: i,
			Request:  Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, URL: "https://api.example.com" + p, Method: "GET", Host: "api.example.com"},
			Response: Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK", ContentLength: int64(len(bodies[p])), Body: Body(bodies[p]), Headers: http.Header{"Content-Type": {"application/octet-stream"}}}})
	}
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.New(strings.TrimSuffix(c.Path, ".yaml"),
		recorder.WithMode(recorder.ModeReplayOnly),
		recorder.WithSkipRequestLatency(true),
		recorder.WithMatcher(func(r *http.Request, i vcrcassette.Request) bool {
			return r.Method == i.Method && r.URL.String() == i.URL
		}))
	if err != nil {
		t.Fatalf("go-vcr refused our cassette: %v", err)
	}
	defer rec.Stop()
	client := rec.GetDefaultClient()
	for p, want := range bodies {
		resp, err := client.Get("https://api.example.com" + p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != want {
			t.Errorf("%s: go-vcr replayed %q, want %q", p, got, want)
		}
	}
}
