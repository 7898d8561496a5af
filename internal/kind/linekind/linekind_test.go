package linekind_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/kind/linekind"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// echoServer is a real TCP line server on loopback: each line it reads is
// answered with answer(line). It stops with the test.
func echoServer(t *testing.T, answer func(string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				s := bufio.NewScanner(conn)
				for s.Scan() {
					fmt.Fprintf(conn, "%s\n", answer(s.Text()))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// pong answers PING with PONG and echoes every other line.
func pong(l string) string {
	if l == "PING" {
		return "PONG"
	}
	return l
}

const lineCassette = `cassette: 1
adapter: echo
scenario: greet
kind: line
input:
  command: nc
  stdin: |
    hello
    PING
output:
  stdout: |
    hello
    PONG
  stderr: ""
  exit_code: 0
`

// project writes a project of one line adapter whose fake is at
// baseURL, and its one cassette.
func project(t *testing.T, baseURL string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := "adapters:\n  echo:\n    kind: line\n    real: {command: [nc]}\n    fake: {base_url: " + baseURL + "}\n"
	if err := os.WriteFile(filepath.Join(dir, cfgschema.ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "cassettes", "echo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cassettes", "echo", "greet.yaml"), []byte(lineCassette), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, cfgschema.ConfigFile)
}

// kinds is the one registration: the built-ins and the line kind.
func kinds(t *testing.T) *kind.Registry {
	t.Helper()
	reg := kind.Builtins()
	if err := reg.Register(linekind.New()); err != nil {
		t.Fatal(err)
	}
	return reg
}

// run loads the project with reg's kinds, validates its cassettes as
// `cassette validate` does, plans its cases and verifies them as
// `cassette verify` does (verify.ProjectOptions).
func run(t *testing.T, path string, reg *kind.Registry) (*workspace.Project, *verify.Outcome) {
	t.Helper()
	p, err := workspace.LoadKinds(path, reg.Loading())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if list, probs, err := verify.Validate(p, nil, p.LoadOptions(nil)); err != nil || probs != nil || len(list) != 1 {
		t.Fatalf("cassette validate: %d cassettes, %v, %v", len(list), probs, err)
	}
	cases, err := verify.PlanPaths(p.Config, verify.PlanRun{Load: p.LoadOptions(nil)})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if len(cases) != 1 || cases[0].Cassette.Kind != linekind.Name {
		t.Fatalf("planned %d cases, want the one line cassette", len(cases))
	}
	opts := verify.ProjectOptions(p, func(string) (string, bool) { return "", false })
	opts.LogDir = t.TempDir() // its Kinds are the project's (kind.Of)
	return p, verify.Run(context.Background(), cases, opts)
}

// A line adapter, known only through its registration, is validated in
// cassette.yaml, its cassette loaded, replayed against a real TCP fake and
// compared: a fake that answers as recorded passes, one that answers
// otherwise drifts at output.stdout with the line that changed, and the
// reports show it in the kind's action shape. Any
// switch elsewhere that knows only http and cli would refuse the config
// (`line` is not allowed), the cassette, or the case (no fake to run).
func TestALineKindIsOnePackageAndARegistration(t *testing.T) {
	reg := kinds(t)
	_, o := run(t, project(t, "tcp://"+echoServer(t, pong)), reg)
	if o.Err != nil {
		t.Fatalf("run error: %v", o.Err)
	}
	res := o.Results[0]
	if res.Status != verdict.StatusPass {
		t.Fatalf("a fake that answers as recorded: %s %s %s\n%s", res.Status, res.Reason, res.Message, res.Explain)
	}
	if len(res.Actions) != 1 || strings.Join(res.Actions[0].Argv, ",") != "hello,PING" {
		t.Errorf("actions = %+v, want the two lines sent", res.Actions)
	}

	p, o := run(t, project(t, "tcp://"+echoServer(t, strings.ToLower)), reg)
	res = o.Results[0]
	if res.Status != verdict.StatusFail || len(res.Drifts) == 0 {
		t.Fatalf("a fake that answers pong: %s %s %s, %d drifts", res.Status, res.Reason, res.Message, len(res.Drifts))
	}
	if d := res.Drifts[0]; d.Field != "output.stdout" || !strings.Contains(d.Message, "PONG") || !strings.Contains(d.Message, "ping") {
		t.Errorf("drift = %+v, want output.stdout's PONG became ping", d)
	}

	// The reports show the case as the kind shapes it: a "proc" action
	// whose argv is the lines sent, and the drift at output.stdout.
	files, err := report.Render((*report.Run)(o.Report(p.Config, verify.Meta{})), report.Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	jsonl, junit := string(files[report.FileReport]), string(files[report.FileJUnit])
	if !strings.Contains(jsonl, `"action":"proc"`) || !strings.Contains(jsonl, `"argv":["hello","PING"]`) {
		t.Errorf("report.jsonl shows no proc action with the lines sent:\n%s", jsonl)
	}
	if !strings.Contains(junit, "echo/greet") || !strings.Contains(junit, "output.stdout") {
		t.Errorf("junit.xml does not fail echo/greet at output.stdout:\n%s", junit)
	}
}

// Without the registration the same project is refused where the config
// is read, as a kind not allowed, with the known kinds: the registration
// is what admits it. With it, the kind's own rule holds the fake's
// base_url, at its line.
func TestTheRegistrationAdmitsTheKind(t *testing.T) {
	path := project(t, "tcp://127.0.0.1:1")
	_, err := workspace.Load(path)
	var oe *outcome.Error
	if !errors.As(err, &oe) || len(oe.Problems) != 1 || oe.Problems[0].Field != "adapters[echo].kind" || oe.Problems[0].Line != 3 ||
		oe.Problems[0].Message != "`line` is not allowed" || oe.Problems[0].Expected != "one of http, cli" {
		t.Fatalf("load without the line kind: %v %+v", err, oe)
	}

	_, err = workspace.LoadKinds(project(t, "http://127.0.0.1:1"), kinds(t).Loading())
	if !errors.As(err, &oe) || len(oe.Problems) != 1 || oe.Problems[0].Field != "adapters.echo.fake.base_url" || oe.Problems[0].Line != 5 {
		t.Fatalf("a line adapter whose fake is http: %v %+v", err, oe)
	}
}

// Coverage shapes a line cassette through its kind: one shape per verb
// sent. Without the registration the cassette is read as http's (the
// format's default), whose one call is the recorded command's: the
// shapes per verb come from the kind.
func TestCoverageShapesALineCassetteThroughItsKind(t *testing.T) {
	c := &cassettes.Cassette{Kind: linekind.Name, Input: &cassettes.Input{Command: "nc", Stdin: "hello there\nPING\nhello again\n"}}
	rules, probs := coverage.NewRules(&cfgschema.Adapter{Kind: linekind.Name})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if got := rules.OfCassette(c); len(got) != 1 || got[0] != "nc <stdin>" {
		t.Errorf("shapes without the line kind = %q, want the command's one", got)
	}
	rules.Kinds = kinds(t)
	got := rules.OfCassette(c)
	if len(got) != 2 || !strings.Contains(string(got[0]), "hello") || !strings.Contains(string(got[1]), "PING") {
		t.Errorf("shapes = %q, want hello's and PING's", got)
	}
}
