package harness_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/harness"
)

// TestAnswersHoldNoCredential: a binding's {"error": "…ghp_…"} and a fake
// whose output echoes a declared credential came back raw in the answer's
// message and text, which pytest and node print as the failure (#35).
// Every answer goes through the project's redaction, and so does the
// summary.
func TestAnswersHoldNoCredential(t *testing.T) {
	const token = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"
	const declared = "decl4red-gr33ting-value"
	cases, opts := project(t)
	opts.Credentials = map[string]string{"GREETING": declared}
	answers, _ := check(t, cases, opts, beforeExpiry,
		map[string]any{"id": "greet/hello", "error": "the fake raised: bad credentials " + token},
		map[string]any{"id": "greet/hello", "cli": map[string]any{"stdout": "Hello, " + declared + "!\n", "exit_code": 0}})
	for i, a := range answers {
		b, _ := json.Marshal(a)
		if strings.Contains(string(b), token) || strings.Contains(string(b), declared) {
			t.Errorf("answer %d holds a credential: %s", i, b)
		}
	}
	if msg, _ := answers[0]["message"].(string); !strings.Contains(msg, "bad credentials [REDACTED]") {
		t.Errorf("message %q, want the token redacted in place", msg)
	}
	if text, _ := answers[1]["text"].(string); !strings.Contains(text, "[REDACTED]") {
		t.Errorf("the drift's text %q, want the declared value redacted", text)
	}
	var out bytes.Buffer
	k := &harness.Checker{Cases: cases, Options: opts, Now: func() time.Time { return beforeExpiry }}
	if err := k.Write(&out, map[string]string{"message": "first: " + token}); err != nil || strings.Contains(out.String(), token) {
		t.Errorf("Write: %v %s", err, out.String())
	}
}

// TestLongLineIsRefusedUnread: a line longer than MaxLine is answered
// with a problem naming its line number, and the lines after it are
// judged (a 150 MB stdout line grew check to 2 GB with no answer, #35).
func TestLongLineIsRefusedUnread(t *testing.T) {
	cases, opts := project(t)
	long := `{"id":"greet/hello","cli":{"stdout":"` + strings.Repeat("x", harness.MaxLine) + `"}}`
	answers, done := check(t, cases, opts, beforeExpiry, long,
		map[string]any{"id": "greet/hello", "cli": map[string]any{"stdout": "nope\n", "exit_code": 0}})
	if len(answers) != 2 || answers[0]["type"] != "error" || !strings.Contains(answers[0]["message"].(string), "stdin line 1: the line is longer than 64 MiB") {
		t.Fatalf("answers %v", answers[0])
	}
	if answers[1]["type"] != "result" || done.Problems != 1 {
		t.Errorf("the next line: %v (problems %d)", answers[1], done.Problems)
	}
}
