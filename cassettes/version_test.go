package cassettes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestCLICassetteNeedsNoVersion: `version` is go-vcr's, for HTTP cassettes;
// an absent number is reported missing, never as the value 0;
// a CLI cassette without it loads, and an HTTP cassette without it is told
// the field is missing, never that `0` is not supported.
func TestCLICassetteNeedsNoVersion(t *testing.T) {
	dir := t.TempDir()
	cfg := &cfgschema.Config{Adapters: map[string]*cfgschema.Adapter{"greet": {Kind: cfgschema.KindCLI}, "api": {Kind: cfgschema.KindHTTP}}, Dir: dir}
	write := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cli := write("cassettes/greet/hi.yaml", "cassette: 1\nadapter: greet\nscenario: hi\nkind: cli\ninput: {command: greet}\noutput: {stdout: \"hi\\n\", exit_code: 0}\n")
	if _, err := Load(cli, LoadOptions{Config: cfg}); err != nil {
		t.Errorf("a CLI cassette without version: %v", err)
	}
	api := write("cassettes/api/get.yaml", "cassette: 1\nadapter: api\nscenario: get\nkind: http\ninteractions:\n  - request: {method: GET, url: \"http://x.example/\"}\n    response: {code: 200}\n")
	_, err := Load(api, LoadOptions{Config: cfg})
	if err == nil || strings.Contains(err.Error(), "`0`") || !strings.Contains(err.Error(), "version") {
		t.Errorf("an HTTP cassette without version: %v; want version named as missing", err)
	}
	nocode := write("cassettes/api/nocode.yaml", "cassette: 1\nversion: 2\nadapter: api\nscenario: nocode\nkind: http\ninteractions:\n  - request: {method: GET, url: \"http://x.example/\"}\n    response: {body: ok}\n")
	_, err = Load(nocode, LoadOptions{Config: cfg})
	if err == nil || strings.Contains(err.Error(), "`0`") || !strings.Contains(err.Error(), "response.code: is missing") {
		t.Errorf("a response without code: %v; want it named as missing", err)
	}
}
