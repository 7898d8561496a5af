package cassettes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestHandWrittenMetadataIsStrict: a file that carries any of cassette's
// own keys is cassette's, loaded strictly, even without `cassette: 1`: a
// typo in its adapter (`ecko` inside cassettes/echo/, declared nowhere) is
// an error at its line with a suggestion, never a cassette of the adapter
// its folder names. A file with go-vcr's keys alone stays a plain go-vcr
// cassette. Both parses (whole and split) say the same.
func TestHandWrittenMetadataIsStrict(t *testing.T) {
	cfg := &cfgschema.Config{Adapters: map[string]*cfgschema.Adapter{"echo": {Kind: cfgschema.KindCLI}}, Order: []string{"echo"}}
	const echo = "adapter: ecko\nscenario: hi\nkind: cli\ninput:\n  command: echo\n  args: [hi]\noutput:\n  stdout: |\n    hi\n  stderr: \"\"\n  exit_code: 0\n"
	for _, c := range []struct {
		name, data string
		want       []string // substrings of the error; none: it loads
	}{
		{"adapter typo without cassette key", echo,
			[]string{"hi.yaml:1: adapter: adapter `ecko` is not declared in cassette.yaml (expected one of echo); did you mean `echo`"}},
		{"adapter typo with cassette key", "cassette: 1\n" + echo,
			[]string{"hi.yaml:2: adapter: adapter `ecko` is not declared"}},
		{"kind alone makes it ours", "kind: cli\ninput: {command: echo}\noutput: {stdout: \"\", stderr: \"\", exit_code: 0}\nextra: 1\n",
			[]string{"hi.yaml:4:1: extra: unknown field `extra`"}},
		{"plain go-vcr", "version: 2\ninteractions: []\n", nil},
		{"metadata without cassette key, right adapter", strings.Replace(echo, "ecko", "echo", 1), nil},
	} {
		for _, parse := range []struct {
			name string
			run  func(func() error) error
		}{{"whole", func(f func() error) error { return wholeParse(t, f) }}, {"split", func(f func() error) error { return forceSplit(t, f) }}} {
			t.Run(c.name+"/"+parse.name, func(t *testing.T) {
				root := t.TempDir()
				cfg.Dir, cfg.Path = root, filepath.Join(root, cfgschema.ConfigFile)
				file := filepath.Join(root, "cassettes", "echo", "hi.yaml")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
					t.Fatal(err)
				}
				err := parse.run(func() error { _, err := Load(file, LoadOptions{Config: cfg}); return err })
				if len(c.want) == 0 {
					if err != nil {
						t.Fatalf("it must load: %v", err)
					}
					return
				}
				var ce *outcome.Error
				if !errors.As(err, &ce) || ce.Reason != outcome.ECassetteInvalid {
					t.Fatalf("want E_CASSETTE_INVALID, got %v", err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q:\n%v", w, err)
					}
				}
			})
		}
	}
}

// TestMisspeltKeyIsNamed: in a plain go-vcr cassette an unknown key is
// only a warning (go-vcr ignores it), but when a required key is missing
// and an unknown key is its likely misspelling, the error names the key
// the user wrote, at its line, and suggests the right one.
func TestMisspeltKeyIsNamed(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "cassettes", "echo", "hi.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	data := "version: 2\ninteractionz:\n  - request: {url: \"https://x.example/\", method: GET}\n    response: {code: 200}\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(file, LoadOptions{})
	want := "hi.yaml:2:1: interactions: is required; the file has an unknown key `interactionz` here (expected present when kind is http); did you mean `interactions`?"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want %q, got:\n%v", want, err)
	}
}

// TestEmptyAdapterIsAProblemNotAPanic: an adapter declared with no value
// beside a valid one was a nil pointer in the credential scan (found by
// learn's FuzzPatch); it is a problem at its line.
func TestEmptyAdapterIsAProblemNotAPanic(t *testing.T) {
	data := "version: 1\nadapters:\n  svc:\n    kind: cli\n    real: {command: [x]}\n    fake: {command: [y]}\n  other:\n"
	_, err := ParseConfig("cassette.yaml", []byte(data), ConfigOptions{})
	if err == nil || !strings.Contains(err.Error(), "cassette.yaml") {
		t.Fatalf("want a config error, got %v", err)
	}
}
