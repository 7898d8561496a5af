package harness_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/report"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// schema compiles protocol.schema.json, the protocol's published schema.
func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("protocol.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func valid(t *testing.T, s *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not follow protocol.schema.json: %v\n%s", what, err, data)
	}
}

// TestSchema holds what cassette really writes and reads to the schema the
// README points binding authors at: a listing, every kind of answer, the
// summary, and the lines the tests send.
func TestSchema(t *testing.T) {
	s := schema(t)
	cases, opts := project(t)
	l, err := harness.List(cases, opts, beforeExpiry)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(l)
	valid(t, s, "the listing", data)

	lines := []any{
		map[string]any{"id": "greet/hello", "cli": map[string]any{"stdout": "Hi\n", "stderr": "", "exit_code": 0}, "duration_ms": 1.5, "replay": "x"},
		map[string]any{"id": "greet/flaky", "file": "cassettes/greet/flaky.yaml", "cli": map[string]any{"stdout_base64": b64([]byte{0xff}), "exit_code": 1}},
		map[string]any{"id": "greet/hello", "error": "boom"},
		map[string]any{"type": "next", "id": "items/create-then-get", "http": map[string]any{"responses": []any{
			map[string]any{"status": 201, "reason": "Created", "headers": map[string][]string{"Content-Type": {"application/json"}}, "body": `{"id":"0b6c6fd4-6d43-4e8b-9d6e-2f0f1c7f4a11"}`}}}},
		map[string]any{"id": "nope/nope", "cli": map[string]any{"exit_code": 0}},
		map[string]any{"type": "cases", "adapter": "greet"},
	}
	for _, l := range lines {
		data, _ := json.Marshal(l)
		valid(t, s, "the line", data)
	}
	answers, done := check(t, cases, opts, beforeExpiry, lines...)
	kinds := map[string]bool{}
	for _, a := range answers {
		data, _ := json.Marshal(a)
		valid(t, s, "the answer", data)
		kinds[a["type"].(string)] = true
	}
	if len(kinds) != 4 {
		t.Errorf("answers of kinds %v: want result, request, error and cases", kinds)
	}
	sum := harness.Summarize(done, done.Run(opts.Config, reportTool()))
	data, _ = json.Marshal(sum)
	valid(t, s, "the summary", data)
}

func reportTool() report.Tool { return report.Tool{Name: "cassette", Version: "test"} }
