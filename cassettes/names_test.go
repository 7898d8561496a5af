package cassettes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// plainGoVCR is a go-vcr v4 cassette as such projects commit them.
const plainGoVCR = `---
version: 2
interactions:
    - id: 0
      request:
        url: https://api.example.com/v1/things
        method: GET
      response:
        body: '{"ok":true}'
        status: 200 OK
        code: 200
        duration: 0s
`

// TestNamesFromTheWild: a go-vcr cassette named after a Go test and its
// subtests loads, with the file's own name as the scenario (case kept), and
// nested subtest folders become part of the scenario below the adapter. In
// a project, a name git, file systems and shells cannot all carry (spaces,
// parentheses) is refused, with the name to rename it to; a standalone
// file (a proxy replaying a go-vcr directory) loads as go-vcr loads it.
func TestNamesFromTheWild(t *testing.T) {
	root := t.TempDir()
	cfg := &cfgschema.Config{Dir: root, Adapters: map[string]*cfgschema.Adapter{"auth0": {Kind: cfgschema.KindHTTP}}}
	for _, tc := range []struct{ rel, adapter, scenario, refused string }{
		{"auth0/TestFoo_Bar.yaml", "auth0", "TestFoo_Bar", ""},
		{"auth0/Scenario_Get_X_returns_OK_response-e0bf.yaml", "auth0", "Scenario_Get_X_returns_OK_response-e0bf", ""},
		{"auth0/400_Bad_Request.yml", "auth0", "400_Bad_Request", ""},
		{"auth0/TestCIBA/Should_throw_error_v2.yaml", "auth0", "TestCIBA/Should_throw_error_v2", ""},
		{"auth0/TestCIBA/Should throw error (v2).yaml", "auth0", "TestCIBA/Should throw error (v2)", "TestCIBA/Should-throw-error-v2.yaml"},
		{"undeclared/MixedCase.yaml", "undeclared", "MixedCase", ""},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			p := filepath.Join(root, "cassettes", filepath.FromSlash(tc.rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(plainGoVCR), 0o644)
			c, err := Load(p, LoadOptions{Config: cfg, Normalizers: builtins})
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), "the file name `auth0/TestCIBA/Should throw error (v2)` is not a valid name") || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("in a project: got %v, want the name refused and %q", err, tc.refused)
				}
				c, err = Load(p, LoadOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Adapter != tc.adapter && tc.refused == "" || c.Scenario != tc.scenario && tc.refused == "" {
				t.Errorf("adapter/scenario = %q/%q, want %q/%q", c.Adapter, c.Scenario, tc.adapter, tc.scenario)
			}
			// Without a config the parent folder is the adapter.
			c, err = Load(p, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Base(filepath.Dir(p)); c.Adapter != want || c.Scenario != strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) {
				t.Errorf("without config: %q/%q", c.Adapter, c.Scenario)
			}
		})
	}
}

// TestEmptyInteractions: go-vcr writes `interactions: []` for a test that
// made no request; it loads, plain or with our metadata.
func TestEmptyInteractions(t *testing.T) {
	cfg := testConfig(t)
	for name, data := range map[string]string{
		"plain.yaml":  "---\nversion: 2\ninteractions: []\n",
		"ours.yaml":   goodHTTP[:strings.Index(goodHTTP, "interactions:")] + "interactions: []\n",
		"format1.yml": "---\nversion: 1\ninteractions: []\n",
	} {
		p := filepath.Join(t.TempDir(), "github", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
		c, err := Load(p, LoadOptions{Config: cfg, Normalizers: builtins})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.Interactions) != 0 || c.Kind != cfgschema.KindHTTP {
			t.Errorf("%s: %d interactions, kind %q", name, len(c.Interactions), c.Kind)
		}
	}
}

// TestNewNamesStayStrict: names cassette creates keep the strict form, and
// StrictName turns a name from the wild into one (record suggests it).
func TestNewNamesStayStrict(t *testing.T) {
	if !ValidNewName("list-pulls") || ValidNewName("TestFoo_Bar/Sub Test") || ValidNewName("../evil") {
		t.Fatal("ValidNewName does not keep the strict form")
	}
	for in, want := range map[string]string{"TestFoo_Bar/Sub Test": "testfoo_bar-sub-test", "../../evil": "evil", "bad name": "bad-name", "---": ""} {
		if got := StrictName(in); got != want || (got != "" && !ValidNewName(got)) {
			t.Errorf("StrictName(%q) = %q, want %q (valid)", in, got, want)
		}
	}
	for _, bad := range []string{"", "../x", "a//b", "/abs", `a\b`, "a\x00b", "./x"} {
		if ValidName(bad) {
			t.Errorf("%q accepted as a loaded scenario", bad)
		}
	}
}

// TestQuarantineWildCase: a case named from the wild can be quarantined;
// a malformed id still cannot.
func TestQuarantineWildCase(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for id, ok := range map[string]bool{"gh/TestLogin/Should_work": true, "gh/Scenario_Get_X-e0bf": true, "gh/../x": false, "GH/x": false, "gh": false} {
		p := filepath.Join(t.TempDir(), "cassette.yaml")
		os.WriteFile(p, []byte(strings.Replace(string(base), "  gh/pr-list:\n", "  "+id+":\n", 1)), 0o644)
		_, err := LoadConfig(p, ConfigOptions{Normalizers: builtins})
		if (err == nil) != ok {
			t.Errorf("%s: %v", id, err)
		}
	}
}
