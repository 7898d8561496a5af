package harness_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// The project of these tests: a CLI adapter (greet) and an HTTP adapter
// (items) whose fake makes its own ids, recorded as a real service would
// have answered.
const config = `version: 1
adapters:
  greet:
    kind: cli
    real: {command: [greet], credentials: [GREET_TOKEN]}
    fake: {command: [sh, fake.sh]}
    normalizers: [sha:full]
  items:
    kind: http
    fake: {base_url: "http://127.0.0.1:9"}
    normalizers: [uuid, headers.volatile]
    contract_headers: [Content-Type]
quarantine:
  greet/flaky: {category: FLAKE-ENV, owner: alice, quarantined: 2026-11-20, expires: 2026-11-30, bead: "#1", evidence: ci/1, repro: cassette verify --case greet/flaky, reason: port race, remove_when: 3 green runs}
`

const hello = `cassette: 1
version: 2
adapter: greet
scenario: hello
kind: cli
input:
  command: greet
  args: [--name, Ada]
  stdin: "from stdin\n"
  env: [GREETING, GREET_TOKEN]
output:
  stdout: |
    Hello, Ada!
    commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904
  stderr: ""
  exit_code: 0
interactions: []
`

const flaky = `cassette: 1
version: 2
adapter: greet
scenario: flaky
kind: cli
input: {command: greet, args: [--flaky]}
output: {stdout: "ok\n", stderr: "", exit_code: 0}
interactions: []
`

// project writes the project into a temporary directory and loads it as
// the cassette command does.
func project(t testing.TB) ([]verify.Case, verify.Options) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cassette.yaml", config)
	write("cassettes/greet/hello.yaml", hello)
	write("cassettes/greet/flaky.yaml", flaky)
	items, err := os.ReadFile(filepath.Join("testdata", "create-then-get.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write("cassettes/items/create-then-get.yaml", string(items))
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases, opts, err := harness.Plan(p, nil, verify.Selection{}, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	opts.Jobs = 1
	return cases, opts
}

var (
	beforeExpiry = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	afterExpiry  = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
)

// check runs a batch of lines through a Checker and returns its answers.
func check(t *testing.T, cases []verify.Case, opts verify.Options, now time.Time, lines ...any) ([]map[string]any, *harness.Checked) {
	t.Helper()
	var in, out bytes.Buffer
	for _, l := range lines {
		if s, ok := l.(string); ok {
			in.WriteString(s + "\n")
			continue
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	k := &harness.Checker{Cases: cases, Options: opts, Now: func() time.Time { return now }}
	done, err := k.Check(&in, &out)
	if err != nil {
		t.Fatal(err)
	}
	var answers []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		answers = append(answers, m)
	}
	return answers, done
}

func caseOf(t *testing.T, cases []verify.Case, id string) verify.Case {
	t.Helper()
	for _, c := range cases {
		if c.ID() == id {
			return c
		}
	}
	t.Fatalf("no case %s", id)
	return verify.Case{}
}

// TestCLIVerdictIsVerifys feeds the same fake output to verify (which runs
// an in-process CLI target) and to check, and requires the same verdict:
// status, reason, message, drifts (class, field, line, diff) and the
// explanation verify prints under a FAIL line.
func TestCLIVerdictIsVerifys(t *testing.T) {
	cases, opts := project(t)
	c := caseOf(t, cases, "greet/hello")
	for _, tc := range []struct {
		name   string
		out    cassettes.Output
		status verdict.Status
	}{
		{"same, other sha", cassettes.Output{Stdout: "Hello, Ada!\ncommit 1111111111111111111111111111111111111111\n"}, verdict.StatusPass},
		{"stdout drift", cassettes.Output{Stdout: "Hi, Ada!\ncommit 1111111111111111111111111111111111111111\n"}, verdict.StatusFail},
		{"stderr and exit code", cassettes.Output{Stdout: "Hello, Ada!\ncommit 1111111111111111111111111111111111111111\n", Stderr: "warning: x\n", ExitCode: 3}, verdict.StatusFail},
		{"binary stdout", cassettes.Output{Stdout: "\xff\xfe\x00binary"}, verdict.StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen verify.Invocation
			vopts := opts
			vopts.CLI = map[string]verify.CLITarget{"greet": func(_ context.Context, inv verify.Invocation) (cassettes.Output, error) {
				seen = inv
				return tc.out, nil
			}}
			want := verify.Run(context.Background(), []verify.Case{c}, vopts).Results[0]
			if want.Status != tc.status {
				t.Fatalf("verify: %s (%s), want %s", want.Status, want.Message, tc.status)
			}
			if strings.Join(seen.Args, " ") != "--name Ada" || string(seen.Stdin) != "from stdin\n" {
				t.Fatalf("verify ran the fake with %q and stdin %q", seen.Args, seen.Stdin)
			}
			cli := map[string]any{"exit_code": tc.out.ExitCode, "stderr": string(tc.out.Stderr)}
			if tc.out.Stdout.IsBinary() {
				cli["stdout_base64"] = b64(tc.out.Stdout.Bytes())
			} else {
				cli["stdout"] = string(tc.out.Stdout)
			}
			answers, done := check(t, cases, opts, beforeExpiry, map[string]any{"id": "greet/hello", "cli": cli})
			got := done.Outcome.Results[0]
			if got.Status != want.Status || got.Reason != want.Reason || got.Message != want.Message || got.Explain != want.Explain {
				t.Errorf("check: %s %s %q\n%s\nverify: %s %s %q\n%s", got.Status, got.Reason, got.Message, got.Explain, want.Status, want.Reason, want.Message, want.Explain)
			}
			if !reflect.DeepEqual(got.Drifts, want.Drifts) {
				t.Errorf("check's drifts %+v\nverify's %+v", got.Drifts, want.Drifts)
			}
			a := answers[0]
			if a["explain"] != nilIfEmpty(want.Explain) || a["message"] != nilIfEmpty(want.Message) || a["status"] != string(want.Status) {
				t.Errorf("the result line differs from verify's result: %v", a)
			}
			if want.Status == verdict.StatusFail {
				loc := fmt.Sprintf("cassettes/greet/hello.yaml:%d: ", want.Drifts[0].Line)
				if want.Drifts[0].Line == 0 || !strings.HasPrefix(a["text"].(string), loc+want.Message+"\n"+strings.TrimRight(want.Explain, "\n")) || a["blocking"] != true {
					t.Errorf("text %q does not start with %q and verify's explanation, or not blocking", a["text"], loc)
				}
			}
		})
	}
}

// itemsFake is an HTTP fake that makes its own ids: a create answers a new
// UUID, a get must ask for that UUID (it knows no other).
func itemsFake() http.Handler {
	items := map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/items":
			var b [16]byte
			_, _ = rand.Read(b[:])
			b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80 // version 4
			id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
			items[id] = "pen"
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id":%q,"name":"pen"}`, id)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/items/") && r.URL.Query().Get("full") == "1":
			id := strings.TrimPrefix(r.URL.Path, "/items/")
			name, ok := items[id]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"error":"no item %s"}`, id)
				return
			}
			fmt.Fprintf(w, `{"id":%q,"name":%q}`, id, name)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
}

// serve calls h in process with a protocol request.
func serve(t *testing.T, h http.Handler, r map[string]any) map[string]any {
	t.Helper()
	var body io.Reader = strings.NewReader("")
	if b, ok := r["body"].(string); ok {
		body = strings.NewReader(b)
	}
	req := httptest.NewRequest(r["method"].(string), r["target"].(string), body)
	for k, vs := range r["headers"].(map[string]any) {
		for _, v := range vs.([]any) {
			req.Header.Add(k, v.(string))
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return map[string]any{"status": rec.Code, "headers": map[string][]string(rec.Header()), "body": rec.Body.String()}
}

// TestHTTPNextCarriesTheFakesIDs drives an HTTP fake that makes its own
// ids through the protocol: the second request, asked for with "next",
// carries the fake's id, so the case passes as it passes under verify
// against the same fake; sent as recorded, the fake answers 404 and both
// verify and check would call that a drift.
func TestHTTPNextCarriesTheFakesIDs(t *testing.T) {
	cases, opts := project(t)
	c := caseOf(t, cases, "items/create-then-get")

	srv := httptest.NewServer(itemsFake())
	defer srv.Close()
	vopts := opts
	vopts.HTTP = map[string]verify.HTTPTarget{"items": {BaseURL: srv.URL, Client: srv.Client()}}
	if r := verify.Run(context.Background(), []verify.Case{c}, vopts).Results[0]; r.Status != verdict.StatusPass {
		t.Fatalf("verify against the fake: %s %s\n%s", r.Status, r.Message, r.Explain)
	}

	l, err := harness.List(cases, opts, beforeExpiry)
	if err != nil {
		t.Fatal(err)
	}
	var listed harness.Case
	for _, lc := range l.Cases {
		if lc.ID == c.ID() {
			listed = lc
		}
	}
	reqs := listed.HTTP.Requests
	if len(reqs) != 2 || reqs[0].Target != "/items" || reqs[1].Target != "/items/0b6c6fd4-6d43-4e8b-9d6e-2f0f1c7f4a11?full=1" {
		t.Fatalf("listed requests: %+v", reqs)
	}
	if _, hop := reqs[0].Headers["Connection"]; hop || reqs[0].Headers["Content-Type"][0] != "application/json" {
		t.Errorf("request 0's headers %v: want Content-Type and no hop-by-hop header", reqs[0].Headers)
	}
	asMap := func(r harness.Request) map[string]any {
		b, _ := json.Marshal(r)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	h := itemsFake()
	first := serve(t, h, asMap(reqs[0]))
	answers, _ := check(t, cases, opts, beforeExpiry, map[string]any{"type": "next", "id": c.ID(), "http": map[string]any{"responses": []any{first}}})
	if answers[0]["type"] != "request" || answers[0]["index"] != 1.0 {
		t.Fatalf("next: %v", answers[0])
	}
	next := answers[0]["request"].(map[string]any)
	fakeID := strings.TrimSuffix(strings.TrimPrefix(first["body"].(string), `{"id":"`), `","name":"pen"}`)
	if next["target"] != "/items/"+fakeID+"?full=1" {
		t.Fatalf("the next request asks for %v, want the fake's id %s", next["target"], fakeID)
	}
	second := serve(t, h, next)
	answers, done := check(t, cases, opts, beforeExpiry, map[string]any{"id": c.ID(), "http": map[string]any{"responses": []any{first, second}}})
	if answers[0]["status"] != "pass" {
		t.Fatalf("check with the fake's ids: %v", answers[0])
	}
	if a := done.Outcome.Results[0].Actions; len(a) != 2 || a[1].StatusCode != 200 || a[0].URL != "https://items.example.com/items" {
		t.Errorf("the report actions: %+v", a)
	}

	// Sent as recorded, the fake knows no such id: a located drift.
	asRecorded := serve(t, itemsFake(), asMap(reqs[1]))
	answers, _ = check(t, cases, opts, beforeExpiry, map[string]any{"id": c.ID(), "http": map[string]any{"responses": []any{first, asRecorded}}})
	if answers[0]["status"] != "fail" || !strings.Contains(answers[0]["message"].(string), "status drift at interactions[1].response.code") {
		t.Errorf("check with the recorded id: %v", answers[0])
	}
}

// TestQuarantine: a quarantined case's failure does not block until its
// entry expires; then even a pass is a blocking failure, as under verify.
func TestQuarantine(t *testing.T) {
	cases, opts := project(t)
	wrong := map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout": "no\n", "exit_code": 0}}
	right := map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout": "ok\n", "exit_code": 0}}
	for _, tc := range []struct {
		name     string
		now      time.Time
		line     map[string]any
		status   string
		blocking bool
		reason   string
		exit     int
	}{
		{"failing, in quarantine", beforeExpiry, wrong, "fail", false, "E_CONTRACT_DRIFT", 0},
		{"passing, in quarantine", beforeExpiry, right, "pass", false, "", 0},
		{"failing, expired", afterExpiry, wrong, "fail", true, "E_QUARANTINE_EXPIRED", 1},
		{"passing, expired", afterExpiry, right, "fail", true, "E_QUARANTINE_EXPIRED", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answers, done := check(t, cases, opts, tc.now, tc.line)
			a := answers[0]
			if a["status"] != tc.status || a["blocking"] != tc.blocking || a["quarantined"] != true || a["reason"] != nilIfEmpty(tc.reason) {
				t.Errorf("answer %v: want status %s, blocking %v, reason %q", a, tc.status, tc.blocking, tc.reason)
			}
			done.Outcome.Started = tc.now
			run := done.Run(opts.Config, report.Tool{Name: "cassette"})
			if s := harness.Summarize(done, run); s.ExitCode != tc.exit {
				t.Errorf("summary %+v: exit %d, want %d", s, s.ExitCode, tc.exit)
			}
		})
	}
	l, err := harness.List(cases, opts, afterExpiry)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.Cases {
		if (c.ID == "greet/flaky") != (c.Quarantine != nil) || c.Quarantine != nil && (!c.Quarantine.Expired || c.Quarantine.Expires != "2026-11-30") {
			t.Errorf("listed %s with quarantine %+v", c.ID, c.Quarantine)
		}
	}
}

// TestRefusedLines: a line that cannot be taken is answered with an error
// line naming stdin's line and what is wrong; the others are still judged,
// and the run is a usage error (exit 2).
func TestRefusedLines(t *testing.T) {
	cases, opts := project(t)
	ok := map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout": "ok\n", "exit_code": 0}}
	bad := []struct {
		line any
		want string
	}{
		{"not json", "line 1: the line is not a check line"},
		{`{"id":"greet/flaky","cli":{"exit_code":0}} {"id":"greet/hello"}`, "line 2: more than one JSON value on the line"},
		{map[string]any{"cli": map[string]any{"exit_code": 0}}, "line 3: the line names no case"},
		{map[string]any{"id": "greet/nope", "cli": map[string]any{"exit_code": 0}}, `line 4: no case "greet/nope"`},
		{map[string]any{"id": "greet/flaky", "http": map[string]any{"responses": []any{}}}, "greet/flaky is a CLI case: send cli"},
		{map[string]any{"id": "greet/flaky", "cli": map[string]any{"exit_code": 0}, "colour": "red"}, `unknown field "colour"`},
		{map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout": "x", "stdout_base64": "eA==", "exit_code": 0}}, "cli.stdout and cli.stdout_base64 are both set"},
		{map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout_base64": "%%%", "exit_code": 0}}, "cli.stdout_base64 is not standard base64"},
		{map[string]any{"id": "greet/flaky", "protocol": 2, "cli": map[string]any{"exit_code": 0}}, "speaks protocol 2; this cassette speaks protocol 1"},
		{map[string]any{"id": "greet/flaky", "type": "next", "http": map[string]any{"responses": []any{}}}, "next is for HTTP cases"},
		{map[string]any{"id": "items/create-then-get", "http": map[string]any{"responses": []any{map[string]any{"status": 42}}}}, "http.responses[0].status 42"},
		{map[string]any{"id": "items/create-then-get", "type": "next", "http": map[string]any{"responses": []any{map[string]any{"status": 201}, map[string]any{"status": 200}}}}, "there is no request 2"},
		{map[string]any{"id": "items/create-then-get", "type": "guess", "http": map[string]any{"responses": []any{}}}, `type "guess"`},
	}
	lines := []any{}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	lines = append(lines, ok)
	answers, done := check(t, cases, opts, beforeExpiry, lines...)
	for i, b := range bad {
		a := answers[i]
		if a["type"] != "error" || a["input"] != float64(i+1) || !strings.Contains(a["message"].(string), b.want) || a["reason"] != "E_USAGE" || a["next_step"] == "" {
			t.Errorf("line %d: answer %v, want an error saying %q", i+1, a, b.want)
		}
	}
	if a := answers[len(bad)]; a["type"] != "result" || a["status"] != "pass" {
		t.Errorf("the good line after the bad ones: %v", a)
	}
	run := done.Run(opts.Config, report.Tool{Name: "cassette"})
	s := harness.Summarize(done, run)
	if s.ExitCode != 2 || s.Reason != "E_USAGE" || s.Problems != len(bad) || s.Checked != 1 || s.Passed != 1 {
		t.Errorf("summary %+v: want exit 2, E_USAGE, %d problems, 1 checked and passed", s, len(bad))
	}
	if !strings.Contains(run.Message(), "13 lines of the harness were refused; the first: stdin line 1") {
		t.Errorf("the run's message: %s", run.Message())
	}
}

// TestErrorAndReplay: a fake that could not answer is an errored case
// (E_FAKE_ERROR, blocking); the harness's replay command becomes the
// reports' next step; a case checked twice counts once, with its last
// result.
func TestErrorAndReplay(t *testing.T) {
	cases, opts := project(t)
	answers, done := check(t, cases, opts, beforeExpiry,
		map[string]any{"id": "greet/hello", "cli": map[string]any{"stdout": "nope\n", "exit_code": 0}},
		map[string]any{"id": "greet/hello", "error": "the fake raised KeyError: 'name'", "duration_ms": 2.5,
			"replay": "python3 -m pytest 'tests/test_greet.py::test_fake[greet/hello]'"})
	a := answers[1]
	if a["status"] != "error" || a["reason"] != "E_FAKE_ERROR" || a["blocking"] != true ||
		a["text"] != "cassettes/greet/hello.yaml:4: the fake raised KeyError: 'name'" {
		t.Errorf("an errored case: %v", a)
	}
	if len(done.Outcome.Results) != 1 || done.Outcome.Results[0].Duration != 2500*time.Microsecond {
		t.Fatalf("results %+v: want the last one only, 2.5ms", done.Outcome.Results)
	}
	run := done.Run(opts.Config, report.Tool{Name: "cassette"})
	if got := strings.TrimPrefix(run.NextStepCommand(), "Run: "); got != "python3 -m pytest 'tests/test_greet.py::test_fake[greet/hello]'" {
		t.Errorf("next step %q: want the harness's replay command", got)
	}
	if run.Exit() != outcome.ExitFail || run.Command != "check" {
		t.Errorf("run: exit %d, command %q", run.Exit(), run.Command)
	}
}

// TestAnswersAreFlushedPerLine: a harness may write one line and wait for
// its answer before writing the next (a co-process): every answer arrives
// while stdin is still open.
func TestAnswersAreFlushedPerLine(t *testing.T) {
	cases, opts := project(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	k := &harness.Checker{Cases: cases, Options: opts, Now: func() time.Time { return beforeExpiry }}
	errc := make(chan error, 1)
	go func() {
		_, err := k.Check(inR, outW)
		outW.Close()
		errc <- err
	}()
	answers := bufio.NewReader(outR)
	for i, stdout := range []string{"ok\n", "no\n", "ok\n"} {
		fmt.Fprintf(inW, `{"id":"greet/flaky","cli":{"stdout":%q,"exit_code":0}}`+"\n", stdout)
		line, err := answers.ReadString('\n') // blocks until the answer is flushed
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if want := map[bool]string{true: `"status":"pass"`, false: `"status":"fail"`}[stdout == "ok\n"]; !strings.Contains(line, want) {
			t.Errorf("answer %d: %s, want %s", i, line, want)
		}
	}
	inW.Close()
	if rest, _ := io.ReadAll(answers); len(rest) != 0 {
		t.Errorf("after stdin closed: %q", rest)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestOneResultPerTest: a case two tests drive (a test parametrized over
// two fakes, one drifting) is two results, named by their tests, and the
// run fails as the runner does; a test that checks a case again replaces
// its own result only.
func TestOneResultPerTest(t *testing.T) {
	cases, opts := project(t)
	good := map[string]any{"stdout": "Hello, Ada!\ncommit 1111111111111111111111111111111111111111\n", "exit_code": 0}
	bad := map[string]any{"stdout": "Hi, Ada!\n", "exit_code": 0}
	_, done := check(t, cases, opts, beforeExpiry,
		map[string]any{"id": "greet/hello", "cli": good, "test": "tests/test_greet.py::test_fake[Good-greet/hello]"},
		map[string]any{"id": "greet/hello", "cli": bad, "test": "tests/test_greet.py::test_fake[Drifting-greet/hello]"},
		map[string]any{"id": "greet/hello", "cli": bad, "test": "tests/test_greet.py::test_again"},
		map[string]any{"id": "greet/hello", "cli": good, "test": "tests/test_greet.py::test_again"})
	if len(done.Outcome.Results) != 3 {
		t.Fatalf("%d results, want one per test (3)", len(done.Outcome.Results))
	}
	run := done.Run(opts.Config, report.Tool{Name: "cassette"})
	var got []string
	for _, c := range run.Cases {
		got = append(got, c.Scenario+" "+string(c.Status))
	}
	want := []string{"hello (tests/test_greet.py::test_fake[Good-greet/hello]) pass", "hello (tests/test_greet.py::test_fake[Drifting-greet/hello]) fail",
		"hello (tests/test_greet.py::test_again) pass"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cases %q\nwant %q", got, want)
	}
	if len(run.Inventory) != 1 {
		t.Errorf("inventory %+v: one cassette, once", run.Inventory)
	}
	sum := harness.Summarize(done, run)
	if run.Exit() != outcome.ExitFail || sum.Checked != 3 || sum.Passed != 2 || sum.Failed != 1 || sum.ExitCode != 1 {
		t.Errorf("exit %d, summary %+v: want 3 checked, 2 passed, 1 failed, exit 1", run.Exit(), sum)
	}
}

// TestListingWithholdsCredentials: the recorded environment names a
// binding hands its fake with their values never include a live
// credential (the adapter's real.credentials), as verify withholds them.
func TestListingWithholdsCredentials(t *testing.T) {
	cases, opts := project(t)
	l, err := harness.List(cases, opts, beforeExpiry)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.Cases {
		if c.ID == "greet/hello" && !reflect.DeepEqual(c.CLI.Env, []string{"GREETING"}) {
			t.Errorf("greet/hello hands the fake %q: want GREETING only", c.CLI.Env)
		}
	}
}

// TestCasesLineIsTheListing: a "cases" line is answered with the listing
// `cassette cases --json` prints (type "cases" added), of one adapter when
// it names one, from the cases the check judges; an unknown adapter is
// answered with an error line that does not count as a refused line of the
// run (it judged nothing), and the cases are still judged after a listing.
func TestCasesLineIsTheListing(t *testing.T) {
	cases, opts := project(t)
	want := func(adapter string) map[string]any {
		var sel []verify.Case
		for _, c := range cases {
			if adapter == "" || c.Cassette.Adapter == adapter {
				sel = append(sel, c)
			}
		}
		l, err := harness.List(sel, opts, beforeExpiry)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(l)
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m["type"] = "cases"
		return m
	}
	answers, done := check(t, cases, opts, beforeExpiry,
		map[string]any{"type": "cases"},
		map[string]any{"type": "cases", "adapter": "greet"},
		map[string]any{"type": "cases", "adapter": "nope"},
		map[string]any{"id": "greet/flaky", "cli": map[string]any{"stdout": "ok\n", "stderr": "", "exit_code": 0}})
	if len(answers) != 4 {
		t.Fatalf("%d answers, want 4: %v", len(answers), answers)
	}
	for i, adapter := range []string{"", "greet"} {
		if !reflect.DeepEqual(answers[i], want(adapter)) {
			t.Errorf("the listing of %q:\n%v\nwant\n%v", adapter, answers[i], want(adapter))
		}
	}
	if n := len(answers[1]["cases"].([]any)); n != 2 {
		t.Errorf("greet's listing has %d cases, want 2", n)
	}
	if a := answers[2]; a["type"] != "error" || !strings.Contains(a["message"].(string), `adapter "nope": no such adapter`) || !strings.Contains(a["message"].(string), "declared adapters: greet, items") {
		t.Errorf("an unknown adapter's listing: %v", a)
	}
	if a := answers[3]; a["type"] != "result" || a["status"] != "pass" {
		t.Errorf("the case after the listings: %v", a)
	}
	if len(done.Outcome.Results) != 1 || done.Problems != 0 {
		t.Errorf("%d results and %d problems, want 1 and 0", len(done.Outcome.Results), done.Problems)
	}
}
