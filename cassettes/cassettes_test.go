package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// names is a stand-in for the normalize registry (a NameSet); the real
// registry is exercised by the CLI tests.
type names []string

func (n names) Has(s string) bool {
	for _, x := range n {
		if x == s {
			return true
		}
	}
	return false
}
func (n names) Names() []string { return n }

var builtins = names{"timestamps.ISO8601", "timestamps.RFC1123", "headers.volatile", "uuid", "sha:short", "sha:full"}

func testConfig(t *testing.T) *cfgschema.Config {
	t.Helper()
	cfg, err := LoadConfig(filepath.Join("testdata", "cassette.yaml"), ConfigOptions{Normalizers: builtins})
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	return cfg
}

func TestLoadConfig(t *testing.T) {
	cfg := testConfig(t)
	if got := strings.Join(cfg.Order, ","); got != "github,gh" {
		t.Errorf("adapter order = %q, want github,gh (file order)", got)
	}
	if cfg.Adapters["gh"].Kind != cfgschema.KindCLI {
		t.Errorf("gh kind = %q", cfg.Adapters["gh"].Kind)
	}
	if got := cfg.Quarantine["gh/pr-list"].Expires.String(); got != "2026-11-30" {
		t.Errorf("quarantine expires = %q", got)
	}
	if got := cfg.Line("adapters.gh.kind"); got != 15 {
		t.Errorf("Line(adapters.gh.kind) = %d, want 15", got)
	}
	if got := strings.Join(cfg.CredentialNames(), ","); got != "GITHUB_TOKEN,GH_TOKEN" {
		t.Errorf("CredentialNames = %q", got)
	}
}

const goodHTTP = `cassette: 1
version: 2
adapter: github
scenario: list-pulls
kind: http
normalizers: [timestamps.ISO8601, pr_number]
recorded_at: 2026-11-22T14:00:00Z
recorder: {version: 0.1.0, sha: 1a2b3c4}
interactions:
  - id: 0
    request:
      url: https://api.github.com/repos/o/r/pulls
      method: GET
      headers:
        Authorization: ["[REDACTED]"]
    response:
      body: |
        [{"number": 1}]
      headers:
        Content-Type: [application/json]
      status: 200 OK
      code: 200
`

const goodCLI = `cassette: 1
version: 2
adapter: gh
scenario: pr-list
kind: cli
input:
  command: gh
  args: [pr, list]
  env: [GH_REPO]
output:
  stdout: "1\tfix\n"
  stderr: ""
  exit_code: 0
interactions: []
`

// TestMalformed is the table the core issue asks for: every malformed
// cassette or config yields exit 2, the right reason code, a file:line in
// the message, and no panic.
func TestMalformed(t *testing.T) {
	cfg := testConfig(t)
	t.Setenv("GITHUB_TOKEN", "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a")
	declared := map[string]string{"GH_TOKEN": "s3cr3t-value-123"}
	type tc struct {
		name, data string
		config     bool
		reason     outcome.Reason
		want       string // substring of the rendered error
		// setup, when set, changes what the test loads after the file is
		// written (a FIFO, a symlink, a device) and returns the path to load.
		setup func(t *testing.T, file string) string
	}
	rep := func(old, new string) string { return strings.Replace(goodHTTP, old, new, 1) }
	repCLI := func(old, new string) string { return strings.Replace(goodCLI, old, new, 1) }
	cases := []tc{
		{name: "bad yaml", data: "cassette: 1\nversion: [2\n", reason: outcome.ECassetteInvalid, want: "did not find expected ',' or ']'"},
		{name: "tab indentation", data: "cassette: 1\n\tversion: 2\n", reason: outcome.ECassetteInvalid, want: ":2"},
		{name: "unknown top field", data: rep("kind: http", "kind: http\nkinds: x"), reason: outcome.ECassetteInvalid, want: ":6:1: kinds: unknown field `kinds`; did you mean `kind`?"},
		{name: "unknown nested field", data: rep("      method: GET", "      methd: GET"), reason: outcome.ECassetteInvalid, want: "interactions[0].request.methd: unknown field `methd`; did you mean `method`?"},
		{name: "wrong type code", data: rep("code: 200", "code: ok"), reason: outcome.ECassetteInvalid, want: ":22"},
		{name: "wrong type headers", data: rep("Content-Type: [application/json]", "Content-Type: {a: b}"), reason: outcome.ECassetteInvalid, want: ":20"},
		{name: "wrong type normalizers", data: rep("normalizers: [timestamps.ISO8601, pr_number]", "normalizers: {a: b}"), reason: outcome.ECassetteInvalid, want: ":6"},
		{name: "missing adapter", data: rep("adapter: github\n", ""), reason: outcome.ECassetteInvalid, want: "adapter: is required"},
		{name: "undeclared adapter", data: rep("adapter: github", "adapter: githb"), reason: outcome.ECassetteInvalid, want: ":3: adapter: adapter `githb` is not declared in cassette.yaml (expected one of gh, github); did you mean `github`?"},
		{name: "unknown normalizer", data: rep("[timestamps.ISO8601, pr_number]", "[timestamp.ISO8601, pr_number]"), reason: outcome.ECassetteInvalid, want: "normalizers[0]: unknown normalizer `timestamp.ISO8601`; did you mean `timestamps.ISO8601`?"},
		{name: "bad kind", data: rep("kind: http", "kind: htp"), reason: outcome.ECassetteInvalid, want: "kind: `htp` is not allowed (expected one of http, cli); did you mean `http`?"},
		{name: "kind differs from adapter", data: strings.Replace(goodCLI, "adapter: gh", "adapter: github", 1), reason: outcome.ECassetteInvalid, want: "differs from adapter `github`"},
		{name: "duplicate key", data: rep("scenario: list-pulls", "scenario: list-pulls\nscenario: again"), reason: outcome.ECassetteInvalid, want: "already defined"},
		{name: "second document", data: goodHTTP + "---\ncassette: 1\n", reason: outcome.ECassetteInvalid, want: ":24: a second YAML document starts here"},
		{name: "empty file", data: "", reason: outcome.ECassetteInvalid, want: ":1: the file is empty"},
		{name: "only whitespace", data: "\n  \n", reason: outcome.ECassetteInvalid, want: ":1: the file is empty"},
		{name: "binary garbage", data: "\x00\x01\x02\xff\xfe", reason: outcome.ECassetteInvalid, want: ":1: the file is binary data"},
		{name: "top-level list", data: "- a\n- b\n", reason: outcome.ECassetteInvalid, want: ":1: the top level is not a mapping"},
		{name: "newer schema", data: rep("cassette: 1", "cassette: 9"), reason: outcome.ECassetteInvalid, want: "written by a newer cassette"},
		{name: "bad go-vcr version", data: rep("version: 2", "version: 3"), reason: outcome.ECassetteInvalid, want: "version: `3` is not supported (expected 2)"},
		{name: "missing url", data: rep("      url: https://api.github.com/repos/o/r/pulls\n", ""), reason: outcome.ECassetteInvalid, want: "interactions[0].request.url: is required"},
		{name: "relative url", data: rep("url: https://api.github.com/repos/o/r/pulls", "url: /repos/o/r/pulls"), reason: outcome.ECassetteInvalid, want: "is not an absolute URL"},
		{name: "status code out of range", data: rep("code: 200", "code: 42"), reason: outcome.ECassetteInvalid, want: "interactions[0].response.code: `42` is too small"},
		{name: "http without interactions", data: goodHTTP[:strings.Index(goodHTTP, "interactions:")], reason: outcome.ECassetteInvalid, want: "interactions: is required (expected present when kind is http)"},
		{name: "cli without input", data: repCLI("input:\n  command: gh\n  args: [pr, list]\n  env: [GH_REPO]\n", ""), reason: outcome.ECassetteInvalid, want: "input: is required"},
		{name: "cli env value not name", data: repCLI("env: [GH_REPO]", "env: [GH_REPO=x]"), reason: outcome.ECassetteInvalid, want: "is not an environment variable name"},
		{name: "bad scenario name", data: rep("scenario: list-pulls", "scenario: ../list-pulls"), reason: outcome.ECassetteInvalid, want: "is not a valid scenario name"},
		{name: "bad binary body", data: rep("body: |\n        [{\"number\": 1}]", "body: !!binary '***'"), reason: outcome.ECassetteInvalid, want: "not valid base64"},
		{name: "bad duration", data: rep("code: 200", "code: 200\n      duration: soon"), reason: outcome.ECassetteInvalid, want: "expected a duration like 120ms"},
		{name: "planted known token", data: rep("[REDACTED]", "Bearer ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4b"), reason: outcome.ESecretLeak, want: ":15:33: a credential (github-pat) is stored in the file"},
		{name: "planted declared value", data: repCLI(`"1\tfix\n"`, `"token s3cr3t-value-123\n"`), reason: outcome.ESecretLeak, want: "declared:GH_TOKEN"},
		{name: "planted env token", data: repCLI(`"1\tfix\n"`, `"ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a"`), reason: outcome.ESecretLeak, want: "github-pat"},
		{name: "leak behind a schema error", data: rep("[REDACTED]", "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c") + "bogus: 1\n", reason: outcome.ESecretLeak, want: ":15:26: a credential (github-pat)"},
		{name: "leak in a binary file", data: "\x00\x01 token ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4d", reason: outcome.ESecretLeak, want: "github-pat"},
		{name: "empty schema version", data: rep("cassette: 1", "cassette:"), reason: outcome.ECassetteInvalid, want: "cassette: the cassette schema version is missing (expected 1)"},
		{name: "missing sidecar", data: rep("body: |\n        [{\"number\": 1}]", "body: \"\"\n      body_file: bodies/"+hex64+".bin"), reason: outcome.ECassetteInvalid, want: "sidecar body bodies/" + hex64 + ".bin cannot be read"},
		// What a pull request adding one file could do to CI: each is refused
		// before it is read, in bounded time and memory.
		{name: "/dev/zero named", data: goodHTTP, reason: outcome.ECassetteInvalid, want: "not a regular file (a character device)",
			setup: func(*testing.T, string) string { return "/dev/zero" }},
		{name: "symlink to /dev/zero", data: goodHTTP, reason: outcome.ECassetteInvalid, want: "outside the project",
			setup: func(t *testing.T, file string) string { return symlink(t, "/dev/zero", file) }},
		{name: "fifo", data: goodHTTP, reason: outcome.ECassetteInvalid, want: "not a regular file (a named pipe)",
			setup: func(t *testing.T, file string) string {
				os.Remove(file)
				mkfifo(t, file)
				return file
			}},
		{name: "symlink out of the project", data: goodHTTP, reason: outcome.ECassetteInvalid, want: "is a symlink to /etc/passwd, outside the project",
			setup: func(t *testing.T, file string) string { return symlink(t, "/etc/passwd", file) }},
		{name: "huge cassette", data: goodHTTP, reason: outcome.ECassetteInvalid, want: "more than the 67108864 a cassette or config may have",
			setup: func(t *testing.T, file string) string { sparse(t, file, MaxFileBytes+1); return file }},
		{name: "../ sidecar", data: rep("body: |\n        [{\"number\": 1}]", "body: \"\"\n      body_file: ../../../../../../etc/passwd"), reason: outcome.ECassetteInvalid,
			want: `:18: interactions[0].response.body_file: body_file "../../../../../../etc/passwd" is not a sidecar of this cassette`},
		{name: "absolute sidecar /dev/zero", data: rep("body: |\n        [{\"number\": 1}]", "body: \"\"\n      body_file: /dev/zero"), reason: outcome.ECassetteInvalid,
			want: `body_file "/dev/zero" is not a sidecar of this cassette`},
		{name: "sidecar symlink", data: rep("body: |\n        [{\"number\": 1}]", "body: \"\"\n      body_file: bodies/"+hex64+".bin"), reason: outcome.ECassetteInvalid,
			want: "is not a regular file (a symlink)",
			setup: func(t *testing.T, file string) string {
				symlink(t, "/dev/zero", filepath.Join(filepath.Dir(file), "bodies", hex64+".bin"))
				return file
			}},
		{name: "huge sidecar", data: rep("body: |\n        [{\"number\": 1}]", "body: \"\"\n      body_file: bodies/"+hex64+".bin"), reason: outcome.ECassetteInvalid,
			want: "bytes, more than the 536870912 allowed",
			setup: func(t *testing.T, file string) string {
				sparse(t, filepath.Join(filepath.Dir(file), "bodies", hex64+".bin"), maxBodyFileBytes+1)
				return file
			}},
		// cassette.yaml
		{name: "config unknown field", config: true, data: "adapters:\n  gh:\n    knd: cli\n", reason: outcome.ECfgParse, want: ":3:5: adapters.gh.knd: unknown field `knd`; did you mean `kind`?"},
		{name: "config no adapters", config: true, data: "version: 1\n", reason: outcome.ECfgParse, want: "adapters: is required"},
		{name: "config bad kind", config: true, data: "adapters:\n  gh: {kind: grpc, fake: {command: [x]}}\n", reason: outcome.ECfgParse, want: "adapters[gh].kind: `grpc` is not allowed"},
		{name: "config cli without fake", config: true, data: "adapters:\n  gh: {kind: cli}\n", reason: outcome.ECfgParse, want: "adapters.gh.fake.command: a cli adapter's fake needs `command`"},
		{name: "config unknown normalizer", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}, normalizers: [uuids]}\n", reason: outcome.ECfgParse, want: "unknown normalizer `uuids`; did you mean `uuid`?"},
		{name: "config credential value", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}, real: {credentials: [ghp_abc-def]}}\n", reason: outcome.ECfgParse, want: "is not an environment variable name"},
		{name: "config header var undeclared", config: true, data: "adapters:\n  gh:\n    kind: http\n    real: {headers: {Authorization: \"Bearer ${TOK}\"}}\n    fake: {base_url: http://x}\n", reason: outcome.ECfgParse, want: ":4:"},
		{name: "config quarantine missing field", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}}\nquarantine:\n  gh/x: {category: FLAKE-NET, owner: a, quarantined: 2026-11-01, expires: 2026-11-02, bead: b, evidence: e, repro: r, reason: why}\n", reason: outcome.EQuarantineInvalid, want: "quarantine[gh/x].remove_when: is required"},
		{name: "config quarantine too long", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}}\nquarantine:\n  gh/x: {category: FLAKE-NET, owner: a, quarantined: 2026-11-01, expires: 2026-11-30, bead: b, evidence: e, repro: r, reason: why, remove_when: w}\n", reason: outcome.EQuarantineInvalid, want: "quarantine window is 29 days (expected at most 14 days after quarantined)"},
		{name: "config quarantine bad category", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}}\nquarantine:\n  gh/x: {category: FLAKY, owner: a, quarantined: 2026-11-01, expires: 2026-11-02, bead: b, evidence: e, repro: r, reason: why, remove_when: w}\n", reason: outcome.EQuarantineInvalid, want: "`FLAKY` is not allowed"},
		{name: "config bad date", config: true, data: "adapters:\n  gh: {kind: cli, fake: {command: [x]}}\nquarantine:\n  gh/x: {category: FLAKE-NET, owner: a, quarantined: soon, expires: 2026-11-02, bead: b, evidence: e, repro: r, reason: why, remove_when: w}\n", reason: outcome.ECfgParse, want: "expected a date like 2026-11-30"},
		{name: "config second document", config: true, data: "adapters: {}\n---\nx: 1\n", reason: outcome.ECfgParse, want: ":3: a second YAML document starts here"},
		{name: "config with a token", config: true, data: "adapters:\n  gh:\n    kind: http\n    real: {headers: {Authorization: \"Bearer ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4e" + "\"}}\n    fake: {base_url: http://x}\n", reason: outcome.ESecretLeak, want: ":4:"},
		{name: "config flow mapping wrong type", config: true, data: "adapters:\n  svc:\n    kind: http\n    fake: {base_url: http://x}\n    scenarios:\n      - {name: a, path: /, headers: {Accept-Encoding: [gzip]}}\n", reason: outcome.ECfgParse, want: ":6: adapters.svc.scenarios[0].headers.Accept-Encoding: wrong type: got a list"},
		{name: "config bad base_url", config: true, data: "adapters:\n  docker:\n    kind: cli\n    real: {base_url: podman.sock}\n    fake: {command: [x]}\n", reason: outcome.ECfgParse, want: ":4: adapters[docker].real.base_url: `podman.sock` is not an absolute URL (expected a URL like https://api.example.com or unix:///run/podman/podman.sock)"},
		{name: "config binary", config: true, data: "\xff\xfe\x00", reason: outcome.ECfgParse, want: "binary data"},
		{name: "config fifo", config: true, data: "adapters: {}\n", reason: outcome.ECfgParse, want: "not a regular file (a named pipe)",
			setup: func(t *testing.T, file string) string {
				os.Remove(file)
				mkfifo(t, file)
				return file
			}},
		{name: "config symlink out", config: true, data: "adapters: {}\n", reason: outcome.ECfgParse, want: "outside the project",
			setup: func(t *testing.T, file string) string { return symlink(t, "/etc/hostname", file) }},
		{name: "config cassettes outside", config: true, data: "cassettes: ../../elsewhere\nadapters:\n  gh: {kind: cli, fake: {command: [x]}}\n", reason: outcome.ECfgParse,
			want: ":1: cassettes: `cassettes: ../../elsewhere` points outside the project"},
		{name: "config cassettes absolute", config: true, data: "cassettes: /etc\nadapters:\n  gh: {kind: cli, fake: {command: [x]}}\n", reason: outcome.ECfgParse,
			want: "`cassettes: /etc` points outside the project"},
		{name: "config cassettes symlinked out", config: true, data: "cassettes: cs\nadapters:\n  gh: {kind: cli, fake: {command: [x]}}\n", reason: outcome.ECfgParse,
			want: "`cassettes: cs` is a symlink to /etc, outside the project",
			setup: func(t *testing.T, file string) string {
				symlink(t, "/etc", filepath.Join(filepath.Dir(file), "cs"))
				return file
			}},
	}
	if len(cases) < 25 {
		t.Fatalf("the table must hold at least 25 cases, has %d", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "cassettes", "github", "list-pulls.yaml")
			if c.config {
				file = filepath.Join(dir, "cassette.yaml")
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				file = c.setup(t, file)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if c.config {
				_, err = LoadConfig(file, ConfigOptions{Normalizers: builtins})
			} else {
				_, err = Load(file, LoadOptions{Config: cfg, Normalizers: builtins, Credentials: declared})
			}
			runtime.ReadMemStats(&after)
			if !c.config {
				// A large file is parsed one interaction at a time: it
				// must say exactly what the whole parse says.
				split := forceSplit(t, func() error {
					_, err := Load(file, LoadOptions{Config: cfg, Normalizers: builtins, Credentials: declared})
					return err
				})
				if fmt.Sprint(split) != fmt.Sprint(err) {
					t.Errorf("split parse says\n%v\nwhole parse says\n%v", split, err)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("loading allocated %d MB: a malformed file must be refused in bounded memory", alloc>>20)
			}
			var ce *outcome.Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *Error", err)
			}
			if ce.Reason != c.reason || ce.Exit() != outcome.ExitUser {
				t.Errorf("reason %s (exit %d), want %s (exit 2)", ce.Reason, ce.Exit(), c.reason)
			}
			msg := ce.Error()
			if !strings.Contains(msg, file+":") {
				t.Errorf("message does not name file:line:\n%s", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("message lacks %q:\n%s", c.want, msg)
			}
			if ce.NextStep == "" {
				t.Error("no next step")
			}
			if strings.Contains(msg, "s3cr3t-value-123") || strings.Contains(msg, strings.Repeat("b", 36)) {
				t.Errorf("the error leaks the credential:\n%s", msg)
			}
		})
	}
}

// hex64 is a well-formed sidecar hash.
var hex64 = "sha256-" + strings.Repeat("ab", 32)

// symlink replaces link by a symlink to target.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	os.Remove(link)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// sparse makes path a file of size bytes that takes no disk space.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadGood(t *testing.T) {
	cfg := testConfig(t)
	for name, data := range map[string]string{"list-pulls.yaml": goodHTTP, "pr-list.yaml": goodCLI} {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(data), 0o644)
		c, err := Load(p, LoadOptions{Config: cfg, Normalizers: builtins})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Plain {
			t.Errorf("%s: loaded as plain", name)
		}
	}
}

// TestGoVCRRealCassettes loads every cassette go-vcr itself wrote (both of
// its formats), from shared/testdata in place.
func TestGoVCRRealCassettes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir(t), "testdata", "go-vcr-real", "*.yaml"))
	if len(files) < 6 {
		t.Fatalf("found %d go-vcr cassettes under shared/testdata, want 6", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Plain || c.Version != GoVCRVersion || len(c.Interactions) == 0 {
				t.Fatalf("plain=%v version=%d interactions=%d", c.Plain, c.Version, len(c.Interactions))
			}
			if c.Adapter != "go-vcr-real" || c.Scenario != strings.TrimSuffix(filepath.Base(f), ".yaml") {
				t.Errorf("adapter/scenario from path = %s/%s", c.Adapter, c.Scenario)
			}
			for i, in := range c.Interactions {
				if in.Response.Code == 0 || in.Request.URL == "" {
					t.Errorf("interaction %d lost its fields: %+v", i, in)
				}
			}
			assertFixedPoint(t, c)
		})
	}
}

// assertFixedPoint: save → load → save gives identical bytes.
func assertFixedPoint(t *testing.T, c *Cassette) {
	t.Helper()
	dir := t.TempDir()
	c.Path = filepath.Join(dir, "a", "x.yaml")
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	c2, err := Load(c.Path, LoadOptions{})
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	c2.Path = filepath.Join(dir, "b", "x.yaml")
	if err := Save(c2, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(c.Path)
	b, _ := os.ReadFile(c2.Path)
	if !bytes.Equal(a, b) {
		t.Errorf("save→load→save is not a fixed point:\n%s\n---\n%s", a, b)
	}
	for i := range c.Interactions {
		if c.Interactions[i].Response.Body != c2.Interactions[i].Response.Body {
			t.Errorf("interaction %d body changed across save/load", i)
		}
	}
}

func sharedDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("shared/ must sit beside the repository (CI has it there): %v", err)
	}
	return d
}
