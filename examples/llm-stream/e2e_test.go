package llmstream_test

// End-to-end tests of the llm-stream example, run as a user would run it:
// the real cassette binary (built once); the API's real side, real
// recordings of Anthropic's Messages API (charmbracelet/fantasy's go-vcr
// files, read in place from ../shared/testdata), which record.sh imports
// and replays; the chat CLI built from ./chat streaming from it; and the
// fake built by verify from fakes/llm in both its roles (the API, the CLI).
// The official SDKs against the same recordings are in ./sdk, a module of
// its own.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-llm-e2e-", &cassetteBin)) }

// recordings is the folder of real Anthropic recordings record.sh imports.
func recordings(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "testdata", "go-vcr-fantasy", "TestAnthropicCommon", "claude-sonnet-4"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: the shared test data must be beside the repository in CI: %v", dir, err)
		}
		t.Skipf("no shared test data: %v", err)
	}
	return dir
}

func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "chat", "fakes"},
		Module:   "example.com/llmexample",
		Env:      []string{"LLM_RECORDINGS=" + recordings(t)},
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "LLM_") || name == "RECORD_API" ||
				strings.HasPrefix(name, "CASSETTE") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
	// A project of its own commits its cassettes; this repository does not
	// hold these (they hold the recordings: README.md).
	e2e.WriteFile(t, e.Path(".gitignore"), ".cassette/\n")
	return e
}

// recorded is an example whose cassettes record.sh made: the API's real
// recordings imported, the chat CLI recorded reading them.
func recorded(t *testing.T) *e2e.Example {
	t.Helper()
	e := newExample(t)
	if _, errOut := e.MustBoth(nil, "./record.sh"); !strings.Contains(errOut, "recorded cassettes/chat/hi.yaml") {
		t.Fatalf("record.sh did not record chat/hi:\n%s", errOut)
	}
	return e
}

// TestRecordThenVerify: record.sh imports the real recordings as the API's
// cassettes and records the CLI against them, replayed with latency: the
// chat cassette keeps the SSE stream the CLI read with each event's
// arrival time, spread over the 2.1 s the recording took (go-vcr notes
// only the duration), so the last comes no earlier; then verify passes
// both streams and the tool loop against the fake.
func TestRecordThenVerify(t *testing.T) {
	e := recorded(t)
	var c struct {
		Output       struct{ Stdout string }
		Interactions []struct {
			Response struct {
				Body       string
				EventTimes []string `yaml:"event_times"`
			}
		}
	}
	e2e.ReadYAML(t, e.Path("cassettes/chat/hi.yaml"), &c)
	lines := strings.Split(strings.TrimSpace(c.Output.Stdout), "\n")
	if len(lines) != 14 || !strings.Contains(lines[13], `"type":"result"`) || !strings.Contains(lines[13], `Olá! (That's \"hi\" in Portuguese)`) {
		t.Errorf("stdout should hold 14 stream-json lines ending with the result, Olá!…:\n%s", c.Output.Stdout)
	}
	if len(c.Interactions) != 1 || len(c.Interactions[0].Response.EventTimes) != 18 {
		t.Fatalf("the chat cassette should hold the SSE stream the CLI read, with 18 event times: %+v", c.Interactions)
	}
	last, err := time.ParseDuration(c.Interactions[0].Response.EventTimes[17])
	if err != nil || last < 2095*time.Millisecond {
		t.Errorf("the last event arrived after %s (%v); replay with latency spreads the stream over 2.096s", last, err)
	}
	if strings.Contains(e2e.ReadFile(t, e.Path("cassettes/chat/hi.yaml")), "replayed-api-takes-any-key") {
		t.Error("the API key's value is in the cassette")
	}
	e.Must(nil, cassetteBin, "validate")
	out := e.Must(nil, cassetteBin, "verify")
	for _, want := range []string{"PASS  anthropic/simple_streaming", "PASS  anthropic/tool_streaming", "PASS  chat/hi", "3 passed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify lacks %q:\n%s", want, out)
		}
	}
}

// TestFakeDriftFails: a fake that counts tokens differently still passes
// (token counts are normalized); a fake that ends its answer differently
// fails, in both streams, at the record and JSON path that differ.
func TestFakeDriftFails(t *testing.T) {
	e := recorded(t)
	e.Patch("fakes/llm/answers.go", "inputTokens: 16, outputTokens: 38", "inputTokens: 17, outputTokens: 37")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "3 passed, 0 failed") {
		t.Fatalf("verify with other token counts:\n%s", out)
	}
	e.Patch("fakes/llm/answers.go", `" casual way to say hi in Portuguese."}`, `" casual way to say hi."}`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`FAIL  anthropic/simple_streaming`, `value drift at interactions[0].response.body $[14].delta.text: value changed`,
		`FAIL  chat/hi`, `value drift at output.stdout $[12].text: value changed (want " casual way to say hi in Portuguese.", got " casual way to say hi.")`,
		"output.stdout $[13].text", "(cassettes/chat/hi.yaml:", "(cassettes/anthropic/simple_streaming.yaml:", "PASS  anthropic/tool_streaming",
	} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
}

// TestRefreshLoop is the whole loop against a local bare remote: record and
// commit; then the API answers differently (the test serves it a changed
// copy of the API's cassettes — a stand-in for the model changing);
// `cassette refresh --once --adapter chat` re-runs the CLI against it,
// pushes a refresh branch with the new chat cassette and writes the
// fake-drift issue; on that branch verify fails against the unchanged
// fake; teaching the fake the new answer makes it pass.
func TestRefreshLoop(t *testing.T) {
	e := recorded(t)
	changed := filepath.Join(t.TempDir(), "anthropic")
	e2e.CopyTree(t, e.Path("cassettes/anthropic"), changed)
	api := filepath.Join(changed, "simple_streaming.yaml")
	e2e.WriteFile(t, api, strings.Replace(e2e.ReadFile(t, api), `"text":" casual way to say hi in Portuguese."`, `"text":" casual way to say hi."`, 1))
	px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--upstream", "https://api.anthropic.com", "--cassette", changed)
	e.Patch("cassette.yaml", "      base_url: https://api.anthropic.com\n      env:", "      base_url: "+px+"\n      env:")

	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)
	e.Must(nil, "git", append(gitID, "add", ".")...)
	e.Must(nil, "git", append(gitID, "commit", "-q", "-m", "llm example: cassettes")...)
	e.Must(nil, "git", "push", "-q", "origin", "main")
	e.Must(nil, cassetteBin, "verify")

	key := []string{"ANTHROPIC_API_KEY=replayed-api-takes-any-key"}
	files := e.RefreshDrift(cassetteBin, remote, "chat", key, "--adapter", "chat")
	if strings.Join(files, " ") != "cassettes/chat/hi.yaml" {
		t.Errorf("the refresh branch changes %v, want only cassettes/chat/hi.yaml", files)
	}
	if issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/chat.issue.md")); !strings.Contains(issue, "hi") {
		t.Errorf("the fake-drift issue does not name the drifting case:\n%s", issue)
	}

	e.Must(nil, "git", "checkout", "-q", "FETCH_HEAD")
	out, errOut, code := e.Run(nil, cassetteBin, "verify", "--adapter", "chat")
	if code != 1 || !strings.Contains(out, `value drift at output.stdout $[12].text: value changed (want " casual way to say hi.", got " casual way to say hi in Portuguese.")`) {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with record 12 drifting\n%s\n%s", code, out, errOut)
	}
	e.Patch("fakes/llm/answers.go", `" casual way to say hi in Portuguese."}`, `" casual way to say hi."}`)
	if out := e.Must(nil, cassetteBin, "verify", "--adapter", "chat"); !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// TestLearnFromTheRecordingAndTheFake is issue 39's done-when on the
// llm-stream example: its real side is real recordings of Anthropic's API
// served with their timing (cassette proxy --mode replay --latency, as
// record.sh serves them), which answer every call alike, so learning from
// reality alone finds nothing; `cassette learn` also runs the example's
// fake (built by go build, as verify builds it) on each cassette's input
// and learns where its answer differs from reality in a volatile way: its
// own message and tool-use ids, the CLI's times, the key order of its
// events. With every normalizer removed from a copy, verify fails; after
// learn --apply of both adapters it is green, with no more normalizers
// than the hand-written ones plus one. A fake whose result gives another
// stop reason is then a drift learn reports, not a normalizer.
func TestLearnFromTheRecordingAndTheFake(t *testing.T) {
	e := recorded(t)
	hand := e.ForgetNormalizers()
	if _, _, code := e.Run(nil, cassetteBin, "verify"); code != 1 {
		t.Fatalf("verify without normalizers: exit %d, want 1 (the fake's ids differ)", code)
	}
	// The API, served from a copy: learn --apply records cassettes/anthropic anew.
	api := filepath.Join(t.TempDir(), "anthropic")
	e2e.CopyTree(t, e.Path("cassettes/anthropic"), api)
	px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--latency", "--replayable", "--upstream", "https://api.anthropic.com", "--cassette", api)
	e.Env = append(e.Env, "ANTHROPIC_API_KEY=replayed-api-takes-any-key")

	// The API's scenarios are POSTs; a replayed API is not changed by them.
	out := e.LearnApply(cassetteBin, "anthropic", hand["anthropic"], "--base-url", px, "--rerecord-unsafe", "--repeat", "2")
	for _, want := range []string{"and the fake's answer", "anthropic.volatile", "anthropic.token", "toolu_", "json.canonical (built-in)"} {
		if !strings.Contains(out, want) {
			t.Errorf("learn --adapter anthropic lacks %q:\n%s", want, out)
		}
	}
	out += e.LearnApply(cassetteBin, "chat", hand["chat"], "--base-url", px, "--repeat", "2")
	if vout, verr, code := e.Run(nil, cassetteBin, "verify"); code != 0 || !strings.Contains(vout, "3 passed, 0 failed") {
		t.Fatalf("verify after learn --apply: exit %d\n%s\n%s\nlearn said:\n%s", code, vout, verr, out)
	}

	e.Patch("fakes/llm/main.go", `}{"result", id, strings.Join(a.deltas, ""), "end_turn",`, `}{"result", id, strings.Join(a.deltas, ""), "max_tokens",`)
	e.LearnReportsDrift(cassetteBin, []string{"--adapter", "chat", "--base-url", px, "--repeat", "2", "--apply"},
		[]string{`$.stop_reason: reality "end_turn", the fake "max_tokens"`}, []string{"--adapter", "chat"})
}
