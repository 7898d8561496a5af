package llmstream_test

// End-to-end tests of the llm-stream example, run as a user would run it:
// the real cassette binary (built once), the chat CLI built from ./chat
// streaming from an LLM API that cassette's proxy replays from the API
// cassette (no LLM API is reachable from where this is tested, and that
// cassette is not a recording of one: see README.md), and the fake built by
// verify from fakes/llm in both its roles (the API, the CLI).

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

func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	return e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "chat", "fakes", "cassettes"},
		Module:   "example.com/llmexample",
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "LLM_") || name == "RECORD_API" ||
				strings.HasPrefix(name, "CASSETTE") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
}

// TestCommittedCassettesVerify is what CI checks on every change: the API's
// SSE stream and the CLI's stream-json, each against the fake.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "anthropic", []string{"count-stream"})
	newExample(t).VerifyCommitted(cassetteBin, "chat", []string{"count"})
}

// TestRecordThenVerify re-records the CLI with record.sh, which replays the
// API with its recorded timing: the chat cassette keeps the SSE stream the
// CLI read, with each event's arrival time, and those times are at least
// the recorded ones — the events were paced all the way through the
// recording proxy — then verify passes.
func TestRecordThenVerify(t *testing.T) {
	e := newExample(t)
	if err := os.RemoveAll(e.Path("cassettes/chat")); err != nil {
		t.Fatal(err)
	}
	if _, errOut := e.MustBoth(nil, "./record.sh"); !strings.Contains(errOut, "recorded cassettes/chat/count.yaml") {
		t.Fatalf("record.sh did not record chat/count:\n%s", errOut)
	}
	var c struct {
		Output       struct{ Stdout string }
		Input        struct{ Env []string }
		Interactions []struct {
			Response struct {
				Body       string
				EventTimes []string `yaml:"event_times"`
			}
		}
	}
	e2e.ReadYAML(t, e.Path("cassettes/chat/count.yaml"), &c)
	if lines := strings.Split(strings.TrimSpace(c.Output.Stdout), "\n"); len(lines) != 5 || !strings.Contains(lines[4], `"type":"result"`) {
		t.Errorf("stdout should hold 5 stream-json lines ending with the result:\n%s", c.Output.Stdout)
	}
	if len(c.Interactions) != 1 || len(c.Interactions[0].Response.EventTimes) != 9 {
		t.Fatalf("the chat cassette should hold the SSE stream the CLI read, with 9 event times: %+v", c.Interactions)
	}
	last, err := time.ParseDuration(c.Interactions[0].Response.EventTimes[8])
	if err != nil || last < 1206*time.Millisecond {
		t.Errorf("the last event arrived after %s (%v); replay with latency serves it at 1.206s", last, err)
	}
	if strings.Contains(e2e.ReadFile(t, e.Path("cassettes/chat/count.yaml")), "replayed-api-takes-any-key") {
		t.Error("the API key's value is in the cassette")
	}
	e.Must(nil, cassetteBin, "validate")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}
}

// TestFakeDriftFails: a fake that counts tokens differently still passes
// (token counts are normalized); a fake that says one word more fails, in
// both streams, at the record and JSON path that differ.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/llm/answers.go", "inputTokens: 15, outputTokens: 13", "inputTokens: 16, outputTokens: 12")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("verify with other token counts:\n%s", out)
	}
	e.Patch("fakes/llm/answers.go", `"\n4\n5"}`, `"\n4\n5\n6"}`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`FAIL  anthropic/count-stream`, `value drift at interactions[0].response.body $[5].delta.text: value changed`,
		`FAIL  chat/count`, `value drift at output.stdout $[3].text: value changed (want "\n4\n5", got "\n4\n5\n6")`,
		"output.stdout $[4].text", "(cassettes/chat/count.yaml:25)", "(cassettes/anthropic/count-stream.yaml:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
}

// TestRefreshLoop is the whole loop against a local bare remote: record and
// commit; then the API answers differently (the test serves it a changed
// copy of the API cassette — a stand-in for the model changing); `cassette
// refresh --once --adapter chat` re-runs the CLI against it, pushes a
// refresh branch with the new chat cassette and writes the fake-drift
// issue; on that branch verify fails against the unchanged fake; teaching
// the fake the new answer makes it pass.
func TestRefreshLoop(t *testing.T) {
	e := newExample(t)
	changed := filepath.Join(t.TempDir(), "anthropic")
	e2e.CopyTree(t, e.Path("cassettes/anthropic"), changed)
	api := filepath.Join(changed, "count-stream.yaml")
	e2e.WriteFile(t, api, strings.Replace(e2e.ReadFile(t, api), `"text":"\n4\n5"`, `"text":"\n4\n5."`, 1))
	px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--match-body", "json", "--upstream", "https://api.anthropic.com", "--cassette", changed)
	e.Patch("cassette.yaml", "      base_url: https://api.anthropic.com\n      env:", "      base_url: "+px+"\n      env:")

	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)
	e.Must(nil, "./record.sh") // against the committed API cassette
	e.Must(nil, "git", append(gitID, "add", ".")...)
	e.Must(nil, "git", append(gitID, "commit", "-q", "-m", "llm example: cassettes")...)
	e.Must(nil, "git", "push", "-q", "origin", "main")
	e.Must(nil, cassetteBin, "verify")

	key := []string{"ANTHROPIC_API_KEY=replayed-api-takes-any-key"}
	files := e.RefreshDrift(cassetteBin, remote, "chat", key, "--adapter", "chat")
	if strings.Join(files, " ") != "cassettes/chat/count.yaml" {
		t.Errorf("the refresh branch changes %v, want only cassettes/chat/count.yaml", files)
	}
	if issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/chat.issue.md")); !strings.Contains(issue, "count") {
		t.Errorf("the fake-drift issue does not name the drifting case:\n%s", issue)
	}

	e.Must(nil, "git", "checkout", "-q", "FETCH_HEAD")
	out, errOut, code := e.Run(nil, cassetteBin, "verify", "--adapter", "chat")
	if code != 1 || !strings.Contains(out, `value drift at output.stdout $[3].text: value changed (want "\n4\n5.", got "\n4\n5")`) {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with record 3 drifting\n%s\n%s", code, out, errOut)
	}
	e.Patch("fakes/llm/answers.go", `"\n4\n5"}`, `"\n4\n5."}`)
	if out := e.Must(nil, cassetteBin, "verify", "--adapter", "chat"); !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}
