package recording

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// liveProject writes cassette.yaml and the given cassettes (name → YAML
// body after the common header) under a temporary directory, and loads
// them as refresh does.
func liveProject(t *testing.T, config string, files map[string]string) (*cfgschema.Config, map[string]*cassettes.Cassette) {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cassette.yaml", config)
	write("real.sh", `echo "$1 tool=${TOOL_TOKEN:+set} other=${OTHER_TOKEN:+set} forge=${FORGE_TOKEN:+set}"`+"\n")
	cfg, err := cassettes.LoadConfig(filepath.Join(dir, "cassette.yaml"), cassettes.ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*cassettes.Cassette{}
	for name, body := range files {
		adapter, scenario, _ := strings.Cut(name, "/")
		rel := filepath.Join("cassettes", adapter, scenario+".yaml")
		write(rel, "cassette: 1\nadapter: "+adapter+"\nscenario: "+scenario+"\nkind: cli\n"+body)
		c, err := cassettes.Load(filepath.Join(dir, rel), cassettes.LoadOptions{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		out[name] = c
	}
	return cfg, out
}

const liveConfig = `version: 1
adapters:
  tool:
    kind: cli
    real: {command: [sh, real.sh], credentials: [TOOL_TOKEN]}
    fake: {command: [sh, real.sh]}
  other:
    kind: cli
    real: {command: [other], credentials: [OTHER_TOKEN]}
    fake: {command: [other]}
  bare:
    kind: cli
    fake: {command: [sh, real.sh]}
refresh:
  forge: {kind: github, repo: o/r, token_env: FORGE_TOKEN}
`

// TestLiveRunsOnlyTheDeclaredCommand: a CLI cassette is recorded again by
// running the adapter's real.command with the cassette's arguments, never
// the program the cassette names. A cassette naming another program
// (/bin/sh -c …) is refused at its file and line with exit 2, and nothing
// runs (the command would have written a file); so is a cassette of an
// adapter without real.command. The declared command gets its own
// credentials, not other adapters' nor the forge's.
func TestLiveRunsOnlyTheDeclaredCommand(t *testing.T) {
	pwned := filepath.Join(t.TempDir(), "pwned")
	cfg, cs := liveProject(t, liveConfig, map[string]string{
		"tool/hello":  "input: {command: sh real.sh, args: [Ada]}\noutput: {stdout: \"Ada\\n\", exit_code: 0}\n",
		"tool/evil":   "input:\n  command: /bin/sh\n  args: [-c, 'touch " + pwned + "']\noutput: {stdout: \"\", exit_code: 0}\n",
		"tool/prefix": "input: {command: sh, args: [-c, 'touch " + pwned + "']}\noutput: {stdout: \"\", exit_code: 0}\n",
		"bare/any":    "input: {command: sh, args: [-c, 'touch " + pwned + "']}\noutput: {stdout: \"\", exit_code: 0}\n",
	})
	vals := map[string]string{"TOOL_TOKEN": "tool-secret-1", "OTHER_TOKEN": "other-secret-2", "FORGE_TOKEN": "forge-secret-3"}
	environ := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range vals {
		environ = append(environ, k+"="+v)
	}
	live := Live{Config: cfg, LookupEnv: env(vals), Environ: environ, Now: fixedNow, CADir: filepath.Join(t.TempDir(), "ca")}
	ctx := context.Background()

	rec, err := live.Rerecord(ctx, "tool", cfg.Adapters["tool"], cs["tool/hello"])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rec.Cassette.Output.Stdout); got != "Ada tool=set other= forge=\n" {
		t.Errorf("stdout = %q: real.command with the recorded arguments, and only the adapter's own credentials", got)
	}
	if in := rec.Cassette.Input; in.Command != "sh real.sh" || len(in.Args) != 1 || in.Args[0] != "Ada" {
		t.Errorf("input = %+v, want the committed one", in)
	}

	for name, line := range map[string]int{"tool/evil": 6, "tool/prefix": 5} {
		old := cs[name]
		_, err := live.Rerecord(ctx, "tool", cfg.Adapters["tool"], old)
		ce := outcome.AsError(err)
		if ce == nil || ce.Reason != outcome.ECassetteInvalid || ce.Exit() != outcome.ExitUser {
			t.Fatalf("%s: err = %v, want E_CASSETTE_INVALID (exit 2)", name, err)
		}
		loc := old.Path + ":" + strconv.Itoa(line)
		if !strings.HasPrefix(ce.Message, loc+": input.command ") || !strings.Contains(ce.Message, `real.command: "sh real.sh"`) {
			t.Errorf("%s: message %q does not start with %s and name real.command", name, ce.Message, loc)
		}
		if len(ce.Problems) != 1 || ce.Problems[0].Line != line || ce.Problems[0].Field != "input.command" {
			t.Errorf("%s: problems %+v", name, ce.Problems)
		}
		if !strings.HasPrefix(ce.NextStep, "git log -p -- ") {
			t.Errorf("%s: next step %q", name, ce.NextStep)
		}
	}
	_, err = live.Rerecord(ctx, "bare", cfg.Adapters["bare"], cs["bare/any"])
	if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.ECfgParse || len(ce.Problems) != 1 ||
		ce.Problems[0].File != cfg.Path || ce.Problems[0].Line != 11 || ce.Problems[0].Field != "adapters.bare.real.command" {
		t.Errorf("an adapter without real.command: err = %v, problems %+v", err, ce)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a program named by a cassette ran")
	}
}

// TestLiveSendsCredentialsOnlyToTheDeclaredHost: an HTTP adapter without
// real.base_url is re-recorded against the host its cassette recorded; one
// that also sends real.headers (a credential) is refused, since the host
// would come from the cassette: the service a cassette names receives
// nothing.
func TestLiveSendsCredentialsOnlyToTheDeclaredHost(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	cfg, _ := liveProject(t, `version: 1
adapters:
  api:
    kind: http
    real:
      credentials: [API_TOKEN]
      headers: {Authorization: "Bearer ${API_TOKEN}"}
    fake: {base_url: "http://127.0.0.1:1"}
  open:
    kind: http
    real: {}
    fake: {base_url: "http://127.0.0.1:1"}
`, map[string]string{})
	old := &cassettes.Cassette{Adapter: "api", Scenario: "pets", Kind: cfgschema.KindHTTP, Path: "cassettes/api/pets.yaml",
		Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: srv.URL + "/pets"}, Response: cassettes.Response{Code: 200}}}}
	live := Live{Config: cfg, LookupEnv: env(map[string]string{"API_TOKEN": "api-secret-9"}), Now: fixedNow}
	_, err := live.Rerecord(context.Background(), "api", cfg.Adapters["api"], old)
	if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.ECfgParse || len(ce.Problems) != 1 || ce.Problems[0].Field != "adapters.api.real.base_url" || ce.Problems[0].Line != 5 {
		t.Fatalf("err = %v, want E_CFG_PARSE at adapters.api.real.base_url", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the host a cassette named got %d requests", hits.Load())
	}
	old.Adapter = "open"
	if _, err := live.Rerecord(context.Background(), "open", cfg.Adapters["open"], old); err != nil || hits.Load() != 1 {
		t.Errorf("an adapter without credentials headers is re-recorded against the recorded host: %v (%d requests)", err, hits.Load())
	}
}

// TestLiveCLIAlwaysBehindTheProxy: a CLI cassette is re-recorded behind the
// recording proxy whether or not it holds HTTP interactions, so that the
// real side failing is seen: curl against a service whose certificate is
// not trusted exits 60 with nothing on stdout, which was recorded as the
// new output of a cassette without interactions (a drift, a refresh PR);
// it is E_REAL_TLS. Against a trusted service the interactions are kept
// only where the committed cassette had them.
func TestLiveCLIAlwaysBehindTheProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"pets": ["cat"]}`)
	}))
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "upstream.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "output: {stdout: \"{\\\"pets\\\": [\\\"cat\\\"]}\\n\", exit_code: 0}\n"
	withHTTP := "interactions:\n  - request: {method: GET, url: '" + srv.URL + "/pets'}\n    response: {code: 200, body: '{\"pets\": [\"cat\"]}'}\n"
	files := map[string]string{
		"untrusted/nohttp": "input: {command: curl, args: [-sS, '" + srv.URL + "/pets']}\n" + out,
		"trusted/nohttp":   "input: {command: curl, args: [-sS, '" + srv.URL + "/pets']}\n" + out,
		"trusted/http":     "input: {command: curl, args: [-sS, '" + srv.URL + "/pets']}\n" + out + withHTTP,
	}
	cfg, cs := liveProject(t, `version: 1
adapters:
  untrusted:
    kind: cli
    real: {command: [curl]}
    fake: {command: [curl]}
  trusted:
    kind: cli
    real: {command: [curl], ca_file: `+caFile+`}
    fake: {command: [curl]}
`, files)
	home := t.TempDir()
	live := Live{Config: cfg, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, Now: fixedNow, CADir: filepath.Join(home, "ca")}
	ctx := context.Background()
	_, err := live.Rerecord(ctx, "untrusted", cfg.Adapters["untrusted"], cs["untrusted/nohttp"])
	if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.ERealTLS || ce.Exit() != outcome.ExitInfra {
		t.Fatalf("an untrusted service, a cassette without HTTP: err = %v, want E_REAL_TLS (exit 3)", err)
	}
	for name, want := range map[string]int{"trusted/nohttp": 0, "trusted/http": 1} {
		rec, err := live.Rerecord(ctx, "trusted", cfg.Adapters["trusted"], cs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := string(rec.Cassette.Output.Stdout); got != "{\"pets\": [\"cat\"]}\n" || len(rec.Cassette.Interactions) != want {
			t.Errorf("%s: stdout %q, %d interactions, want %d", name, got, len(rec.Cassette.Interactions), want)
		}
	}
}
