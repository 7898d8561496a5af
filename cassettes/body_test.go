package cassettes

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestBodyEncoding pins the decided representation of each kind of body and
// that every one comes back byte for byte.
func TestBodyEncoding(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // what the body line of the file looks like
	}{
		{"multi-line text is a literal block", "{\n  \"a\": 1\n}\n", "body: |\n"},
		{"no final newline is strip-chomped", "line one\nline two", "body: |-\n"},
		{"several final newlines are kept", "a\nb\n\n\n", "body: |+\n"},
		{"CRLF is double-quoted with visible escapes", "a\r\nb\r\n", `body: "a\r\nb\r\n"`},
		{"trailing spaces are double-quoted", "a  \nb\n", `body: "a  \nb\n"`},
		{"leading space is double-quoted", " indented\nnext\n", `body: " indented\nnext\n"`},
		{"single line stays plain", "OK", "body: OK\n"},
		{"a YAML-looking string is quoted", "true", `body: "true"`},
		{"control characters are escaped", "a\x1bb", `body: "a\eb"`},
		{"invalid UTF-8 is !!binary", "\xff\xd8\xff\xe0binary", "body: !!binary"},
		{"NUL bytes are escaped", "a\x00b", `body: "a\0b"`},
		{"empty body", "", `body: ""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP,
				Interactions: []Interaction{{Request: Request{URL: "http://x/", Method: "GET"}, Response: Response{Code: 200, Body: Body(c.body)}}}}
			data, err := Marshal(cs)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), c.want) {
				t.Errorf("want %q in:\n%s", c.want, data)
			}
			got, err := Parse("x.yaml", data, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if g := got.Interactions[0].Response.Body; string(g) != c.body {
				t.Errorf("round trip: got %q, want %q", g, c.body)
			}
		})
	}
}

// TestSidecar moves a large body out of the YAML into a content-addressed
// file and loads it back; an edited sidecar is caught by its hash.
func TestSidecar(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB
	c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Path: filepath.Join(dir, "s.yaml"),
		Interactions: []Interaction{{Request: Request{URL: "http://x/", Method: "GET"}, Response: Response{Code: 200, Body: Body(big)}}}}
	if err := Save(c, SaveOptions{SidecarThreshold: 1024}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(c.Path)
	if bytes.Contains(data, big[:64]) || !strings.Contains(string(data), "body_file: bodies/sha256-") {
		t.Fatalf("the body was not moved to a sidecar:\n%s", data)
	}
	got, err := Load(c.Path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(got.Interactions[0].Response.Body), big) {
		t.Fatal("sidecar body did not come back")
	}
	side, _ := filepath.Glob(filepath.Join(dir, "bodies", "sha256-*.bin"))
	if len(side) != 1 {
		t.Fatalf("sidecars: %v", side)
	}
	os.WriteFile(side[0], []byte("edited"), 0o644)
	if _, err := Load(c.Path, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "does not match its content hash") {
		t.Fatalf("an edited sidecar loaded: %v", err)
	}
}

// TestSaveRefusesLeaks: nothing is written when a credential remains, and
// the error names the line, never the value.
func TestSaveRefusesLeaks(t *testing.T) {
	dir := t.TempDir()
	tok := "xoxb-" + "918273645012-1029384756102-Pq7wLm2xZk4vRt8y"
	c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindCLI, Path: filepath.Join(dir, "s.yaml"),
		Input: &Input{Command: "x"}, Output: &Output{Stdout: Body("token: " + tok + "\nmine: hunter2-long\n")}}
	for _, declared := range []map[string]string{nil, {"MY_PASS": "hunter2-long"}} {
		if declared != nil {
			c.Output.Stdout = "mine: hunter2-long\n"
		}
		err := Save(c, SaveOptions{Credentials: declared})
		if err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak {
			t.Fatalf("Save = %v, want E_SECRET_LEAK", err)
		}
		if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), "hunter2-long") {
			t.Fatalf("the error leaks the value: %v", err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("files were written: %v", ents)
		}
	}
}

// TestSaveIsAtomic: a save replaces the file whole and leaves no temp file.
func TestSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("old"), 0o644)
	c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindCLI, Path: p, Input: &Input{Command: "x"}, Output: &Output{}}
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	if _, err := Load(p, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

// FuzzParse: the loader never panics, and whatever it accepts saves to a
// fixed point.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodHTTP))
	f.Add([]byte(goodCLI))
	f.Add([]byte("version: 1\ninteractions:\n- request: {url: 'http://x', method: GET}\n  response: {code: 200, body: !!binary AAE=}\n"))
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "go-vcr-real", "*.yaml"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("cassettes/a/s.yaml", data, LoadOptions{})
		if err != nil {
			if outcome.AsError(err).Exit() != outcome.ExitUser {
				t.Fatalf("a bad file must be a user error, got %v", err)
			}
			return
		}
		b1, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Parse("cassettes/a/s.yaml", b1, LoadOptions{})
		if err != nil {
			t.Fatalf("our own output does not load: %v\n%s", err, b1)
		}
		b2, _ := Marshal(c2)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("not a fixed point:\n%s\n---\n%s", b1, b2)
		}
	})
}

// TestGzipBodyLeak: a credential inside a gzip-encoded body is found on
// save and on load, although the file's bytes do not show it.
func TestGzipBodyLeak(t *testing.T) {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(`{"echo":"Bearer ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4f"}`))
	zw.Close()
	dir := t.TempDir()
	c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Path: filepath.Join(dir, "s.yaml"),
		Interactions: []Interaction{{Request: Request{URL: "http://x/", Method: "GET"},
			Response: Response{Code: 200, Body: Body(zb.Bytes()), Headers: http.Header{"Content-Encoding": {"gzip"}}}}}}
	if err := Save(c, SaveOptions{}); err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak {
		t.Fatalf("Save = %v, want E_SECRET_LEAK", err)
	}
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("ghp_")) {
		t.Fatal("the test needs the token hidden by the encoding")
	}
	_, err = Parse(c.Path, data, LoadOptions{})
	if err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak || !strings.Contains(err.Error(), "interactions[0].response.body") {
		t.Fatalf("Parse = %v, want E_SECRET_LEAK naming the body", err)
	}
}
