package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
)

func observedSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("observed.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("observed.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("observed.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWritersShareAFile appends from goroutines of two writers on one file
// (as shims in several processes do): every line arrives whole, and every
// line is valid by the published schema.
func TestWritersShareAFile(t *testing.T) {
	dir := t.TempDir()
	schema := observedSchema(t)
	w1, err := OpenWriter(dir, "shared", "shim")
	if err != nil {
		t.Fatal(err)
	}
	w2, err := OpenWriter(dir, "shared", "proxy")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const n = 200
	body := strings.Repeat("x", 3000) // lines of several KiB
	for i := range n {
		wg.Go(func() {
			w := w1
			o := Observation{Adapter: "git", Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git", "log", fmt.Sprint(i)}}, Test: "TestA"}
			if i%2 == 1 {
				w = w2
				o = Observation{Adapter: "api", Kind: cfgschema.KindHTTP, Call: Call{Method: "POST", URL: fmt.Sprintf("/x/%d", i), ContentType: "text/plain", Body: body}}
			}
			if err := w.Write(o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	w1.Close()
	w2.Close()
	obs, probs, err := ReadDir(dir)
	if err != nil || len(probs) > 0 {
		t.Fatalf("ReadDir: %v %v", err, probs)
	}
	if len(obs) != n {
		t.Fatalf("read %d observations, want %d", len(obs), n)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "shared.jsonl"))
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("line %d is not valid by observed.schema.json: %v", i+1, err)
		}
	}
	for _, o := range obs {
		if o.V != FormatVersion || (o.Source != "shim" && o.Source != "proxy") {
			t.Errorf("line %d: v %d, source %q", o.Line, o.V, o.Source)
		}
	}
}

func TestReadDirProblems(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git","status"]}}`,
		``,
		`not json`,
		`{"adapter":"git","kind":"cli","call":{"argv":["git"]}}`,
		`{"v":2,"adapter":"git","kind":"cli","call":{"argv":["git"]}}`,
		`{"v":1,"kind":"cli","call":{"argv":["git"]}}`,
		`{"v":1,"adapter":"git","kind":"cli","call":{}}`,
		`{"v":1,"adapter":"api","kind":"http","call":{"method":"GET"}}`,
		`{"v":1,"adapter":"api","kind":"grpc","call":{"method":"GET","url":"/"}}`,
		`{"v":1,"adapter":"api","kind":"http","call":{"method":"GET","url":"/"},"future_key":true}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ignored.txt"), []byte("not an observation file"), 0o644); err != nil {
		t.Fatal(err)
	}
	obs, probs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 2 || obs[0].Line != 1 || obs[1].Line != 10 {
		t.Errorf("observations %+v, want lines 1 and 10 (unknown keys are ignored)", obs)
	}
	want := map[int]string{3: "", 4: "v", 5: "v", 6: "adapter", 7: "call.argv", 8: "call", 9: "kind"}
	if len(probs) != len(want) {
		t.Fatalf("problems %+v", probs)
	}
	for _, p := range probs {
		f, ok := want[p.Line]
		if !ok || p.Field != f || p.File != filepath.Join(dir, "a.jsonl") || p.Message == "" || p.Expected == "" {
			t.Errorf("problem %+v, want field %q at line %d with what is expected", p, f, p.Line)
		}
	}
	if none, probs, err := ReadDir(filepath.Join(dir, "missing")); none != nil || probs != nil || err != nil {
		t.Errorf("a missing directory: %v %v %v", none, probs, err)
	}
}

func TestRedact(t *testing.T) {
	declared := map[string]string{"GITHUB_TOKEN": "s3cr3t-declared-value"}
	tok := "ghp_" + strings.Repeat("a1B2", 9)
	in := Call{
		Argv: []string{"gh", "api", "--token=" + tok, "--password", "hunter2hunter2", "GITHUB_TOKEN=abc123abc123", "-H", "X-Key: s3cr3t-declared-value", "--jq", ".name",
			"--membership-number", "member-777777", "-f", "echo=pw-in-body-9999"},
		Input:       `{"client_secret":"from-stdin-1234","n":1}`,
		URL:         "/login?access_token=q-token-5678&page=2",
		ContentType: "application/json",
		Body:        `{"password":"pw-in-body-9999","note":"pw-in-body-9999 again","key":"` + tok + `"}`,
	}
	out := Redact(in, redact.New(redact.NewRules([]string{"membership_number"}), declared)) // redact.names of the project

	all, _ := json.Marshal(out)
	for _, secret := range []string{tok, "hunter2hunter2", "abc123abc123", "s3cr3t-declared-value", "from-stdin-1234", "q-token-5678", "pw-in-body-9999", "member-777777"} {
		if strings.Contains(string(all), secret) {
			t.Errorf("the redacted call still holds %q:\n%s", secret, all)
		}
	}
	for _, kept := range []string{`"--jq"`, `".name"`, "page=2", `n\":1`, "--password"} {
		if !strings.Contains(string(all), kept) {
			t.Errorf("the redacted call lost %q:\n%s", kept, all)
		}
	}
	if in.Argv[2] != "--token="+tok {
		t.Error("Redact changed its input")
	}
	bin := Redact(Call{Method: "POST", URL: "/u", Body: "\xff\xfe\x00"}, nil)
	if bin.Body != "" || bin.BodyBytes != 3 {
		t.Errorf("a binary body: %+v, want it dropped with its size", bin)
	}
}
