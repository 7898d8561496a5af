// Package crossdoor_test runs the same fixture projects through every door
// that judges a fake and requires one verdict: `cassette verify` (the real
// binary, the fake started from cassette.yaml), `cassette cases --json`
// then `cassette check` (driven as the pytest and node:test bindings drive
// it: each listed case is run against the fake, what it printed is sent
// back), and cassettetest.VerifyCLI (in a child `go test` process of this
// binary, the fake run by a CLIFunc). Each door runs the same built fake as
// a real child process; what differs is only the door, so any difference
// in status, reason code or drift text is a door that judges on its own.
//
// The pytest and node:test bindings are doors too (bindings_test.go): a
// contract test written into the fixture drives the same built fake per
// listed case through the binding, and the binding's verdicts, its
// reports' run and what its runner shows are held to verify's and
// check's. Their own in-process fakes (Python, JavaScript) are held to
// verify's drift texts by examples/git/bindings_test.go.
package crossdoor_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettetest"
	"github.com/cassette-dev/cassette/examples/internal/e2e"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

// The child process: CROSSDOOR_DIR names the cassette directory that
// TestCassettetestDoor verifies with cassettetest.
const childDir = "CROSSDOOR_DIR"

func TestMain(m *testing.M) {
	if os.Getenv(childDir) != "" {
		os.Exit(m.Run()) // the child needs no binary
	}
	os.Exit(e2e.Main(m, "cassette-crossdoor-", &cassetteBin))
}

// caseVerdict is what a door says of one case.
type caseVerdict struct {
	Status  verdict.Status
	Reason  string          // the reason code of a case that did not pass
	Drifts  []verdict.Drift // nil where the door does not show them (cassettetest)
	Explain string          // the drift text; "" where the door does not show it (verify's run.json)
	// Blocking: the case fails the run (check and the bindings say so).
	Blocking bool
}

// doorVerdict is what a door says of a run.
type doorVerdict struct {
	Exit   int    // -1 for cassettetest, whose exit is go test's
	Reason string // the run's reason code
	// Message is the error line's message of a project refused before
	// any case ran (check's door: what `cassette cases` says).
	Message string
	Cases   map[string]caseVerdict
}

// fixture is one project copied into a temporary directory, with the
// adapter whose cases every door runs (a CLI adapter: the check door's
// driver runs CLI fakes).
type fixture struct {
	name    string
	src     string // the example it starts from
	files   []string
	module  string
	adapter string
	env     []string                       // set for every door
	patch   func(t *testing.T, dir string) // the fixture's changes to the example
}

func fixtures() []fixture {
	demo := func(name string, patch func(*testing.T, string), env ...string) fixture {
		return fixture{name: name, src: "../../demo", files: []string{"cassette.yaml", "fakes", "cassettes"},
			module: "github.com/cassette-dev/cassette/examples/demo", adapter: "greet", patch: patch, env: env}
	}
	const token = "tok-greet-5e1f9a3b7c2d"
	return []fixture{
		demo("demo", nil),
		{name: "git", src: "../../git", files: []string{"cassette.yaml", "fakes", "cassettes"}, module: "example.com/gitexample", adapter: "git"},
		// A drift: the cassette says what the fake no longer says.
		demo("demo-drift", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, "cassettes/greet/hello.yaml"), "Hello, Grace!", "Hi, Grace!")
		}),
		// The quarantine fixtures: two drifting cases, one under a
		// quarantine that holds (the run passes) and one whose quarantine
		// expired (E_QUARANTINE_EXPIRED fails the run).
		demo("quarantine", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, "cassettes/greet/hello.yaml"), "Hello, Grace!", "Hi, Grace!")
			replace(t, filepath.Join(dir, "cassettes/greet/hello-json.yaml"), `"greeting"`, `"salute"`)
			day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
			entry := func(id, from, to string) string {
				return "  " + id + ": {category: FLAKE-ENV, owner: alice, quarantined: " + from + ", expires: " + to +
					", bead: \"#1\", evidence: ci/1, repro: cassette verify --case " + id + ", reason: r, remove_when: w}\n"
			}
			replace(t, filepath.Join(dir, "cassette.yaml"), "quarantine: {}\n",
				"quarantine:\n"+entry("greet/hello", day(-1), day(7))+entry("greet/hello-json", day(-20), day(-10)))
		}),
		// A cassette holding the value of a declared credential variable
		// that is set: every door refuses it (E_SECRET_LEAK, exit 2).
		demo("declared-credential", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, "cassette.yaml"), "real: {command: [./real/greet.sh]}", "real: {command: [./real/greet.sh], credentials: [GREET_TOKEN]}")
			replace(t, filepath.Join(dir, "cassettes/greet/hello.yaml"), "Hello, Grace!", "Hello, "+token+"!")
		}, "GREET_TOKEN="+token),
	}
}

// TestSameVerdictThroughEveryDoor: each fixture gets one verdict, whichever
// door judges it: the same exit and reason code of the run from verify and
// check, the same status and reason code of each case from all three, the
// same drifts from verify and check, and the same drift text from check
// and cassettetest; and from the pytest and node:test bindings the run's
// exit and reason code in their reports, each case's status, reason code,
// drifts and check's drift text, shown by the runner (sameAsVerify).
func TestSameVerdictThroughEveryDoor(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			e := e2e.NewExample(t, f.src, e2e.Config{Cassette: cassetteBin, Files: f.files, Module: f.module, Env: f.env,
				Drop: func(name string) bool { return strings.HasSuffix(name, "_TOKEN") || name == childDir }})
			if f.patch != nil {
				f.patch(t, e.Dir)
			}
			buildFakes(t, e)
			v := verifyDoor(t, e, f.adapter)
			c := checkDoor(t, e, f.adapter)
			g := cassettetestDoor(t, e, f.adapter)
			if v.Exit != c.Exit || v.Reason != c.Reason {
				t.Errorf("the run: verify says exit %d %s, check says exit %d %s", v.Exit, v.Reason, c.Exit, c.Reason)
			}
			if v.Exit == 2 && len(v.Cases) == 0 && g.Reason != v.Reason { // refused before any case ran
				t.Errorf("the run: verify refuses it with %s, cassettetest with %q", v.Reason, g.Reason)
			}
			if len(v.Cases) == 0 && v.Exit == 0 {
				t.Fatalf("verify ran no case of %s", f.adapter)
			}
			sameCases(t, v, c, g)
			// A runner that is not installed skips its door alone.
			t.Run("pytest", func(t *testing.T) { sameAsVerify(t, "pytest", v, c, pytestDoor(t, e, f.adapter)) })
			t.Run("node", func(t *testing.T) { sameAsVerify(t, "node --test", v, c, nodeDoor(t, e, f.adapter)) })
		})
	}
}

// sameCases compares the doors' verdicts case by case.
func sameCases(t *testing.T, v, c, g doorVerdict) {
	t.Helper()
	for _, d := range []struct {
		name string
		dv   doorVerdict
	}{{"check", c}, {"cassettetest", g}} {
		if len(d.dv.Cases) != len(v.Cases) {
			t.Errorf("verify judged %d cases, %s %d: %v / %v", len(v.Cases), d.name, len(d.dv.Cases), keys(v.Cases), keys(d.dv.Cases))
		}
	}
	for id, vc := range v.Cases {
		cc, gc := c.Cases[id], g.Cases[id]
		if vc.Status != cc.Status || vc.Status != gc.Status {
			t.Errorf("%s: verify says %s, check %s, cassettetest %s", id, vc.Status, cc.Status, gc.Status)
		}
		if vc.Reason != cc.Reason {
			t.Errorf("%s: verify's reason %s, check's %s", id, vc.Reason, cc.Reason)
		}
		if vc.Status == verdict.StatusError && vc.Reason != gc.Reason {
			t.Errorf("%s: verify's reason %s, cassettetest's %s", id, vc.Reason, gc.Reason)
		}
		if (len(vc.Drifts) > 0 || len(cc.Drifts) > 0) && !reflect.DeepEqual(vc.Drifts, cc.Drifts) {
			t.Errorf("%s: verify's drifts\n%+v\ncheck's\n%+v", id, vc.Drifts, cc.Drifts)
		}
		if vc.Status == verdict.StatusFail && (cc.Explain == "" || unindent(cc.Explain) != unindent(gc.Explain)) {
			t.Errorf("%s: check's drift text\n%s\ncassettetest's\n%s", id, cc.Explain, gc.Explain)
		}
	}
}

// buildFakes runs each adapter's fake.build once, as verify does, so that
// the doors that do not build (check's driver, cassettetest) run the same
// binary.
func buildFakes(t *testing.T, e *e2e.Example) {
	t.Helper()
	p := project(t, e)
	for _, name := range p.Config.Order {
		if b := p.Config.Adapters[name].Fake.Build; len(b) > 0 {
			e.Must(nil, b[0], b[1:]...)
		}
	}
}

func project(t *testing.T, e *e2e.Example) *workspace.Project {
	t.Helper()
	p, err := workspace.Load(e.Path("cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verifyDoor is `cassette verify --adapter A`, read back from its run.json.
func verifyDoor(t *testing.T, e *e2e.Example, adapter string) doorVerdict {
	t.Helper()
	dir := e.Path("verify-reports")
	_, stderr, code := e.Run(nil, cassetteBin, "verify", "--adapter", adapter, "--report-dir", dir)
	run, _, err := report.ReadRun(os.DirFS(dir), dir)
	if err != nil {
		t.Fatalf("verify (exit %d) left no run.json: %v\n%s", code, err, stderr)
	}
	if int(run.Exit()) != code {
		t.Errorf("verify exited %d, its run.json says %d", code, run.Exit())
	}
	out := doorVerdict{Exit: code, Reason: string(run.Reason()), Cases: map[string]caseVerdict{}}
	for i := range run.Cases {
		c := &run.Cases[i]
		out.Cases[c.ID()] = caseVerdict{Status: c.Status, Reason: string(c.ReasonAt(time.Now())), Drifts: c.Drifts}
	}
	return out
}

// checkDoor lists the cases (`cassette cases --json`), runs each against
// the fake as a binding does, and has `cassette check` judge what it
// printed. A project cases refuses is refused by check too: both load it.
func checkDoor(t *testing.T, e *e2e.Example, adapter string) doorVerdict {
	t.Helper()
	listing, stderr, code := e.Run(nil, cassetteBin, "cases", "--json", "--adapter", adapter)
	if code != 0 {
		_, cerr, ccode := e.Run(nil, cassetteBin, "check", "--adapter", adapter)
		if ccode != code || errorReason(cerr) != errorReason(stderr) {
			t.Errorf("cases exits %d (%s), check %d (%s)", code, errorReason(stderr), ccode, errorReason(cerr))
		}
		return doorVerdict{Exit: code, Reason: errorReason(stderr), Message: errorMessage(stderr)}
	}
	var l harness.Listing
	if err := json.Unmarshal([]byte(listing), &l); err != nil {
		t.Fatalf("cases --json: %v\n%s", err, listing)
	}
	fake := project(t, e).Config.Adapters[adapter].Fake
	var in bytes.Buffer
	for _, c := range l.Cases {
		line, err := json.Marshal(harness.Line{ID: c.ID, File: c.File, CLI: runFake(t, e, fake, c.CLI)})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	cmd := exec.Command(cassetteBin, "check", "--adapter", adapter)
	cmd.Dir, cmd.Env, cmd.Stdin = e.Dir, e.Env, &in
	answers, err := cmd.Output()
	out := doorVerdict{Exit: cmd.ProcessState.ExitCode(), Cases: map[string]caseVerdict{}}
	if err != nil && out.Exit < 0 {
		t.Fatalf("cassette check: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(answers))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var kind struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("check answered %q: %v", sc.Text(), err)
		}
		switch kind.Type {
		case "result":
			var a harness.Result
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatalf("check answered %q: %v", sc.Text(), err)
			}
			out.Cases[a.ID] = caseVerdict{Status: a.Status, Reason: a.Reason, Drifts: a.Drifts, Explain: a.Explain, Blocking: a.Blocking}
		case "summary":
			var a harness.Summary
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatalf("check answered %q: %v", sc.Text(), err)
			}
			out.Reason = a.Reason
			if a.ExitCode != out.Exit {
				t.Errorf("check exited %d, its summary says %d", out.Exit, a.ExitCode)
			}
		default:
			t.Errorf("check refused a line: %s", sc.Text())
		}
	}
	return out
}

// runFake runs the fake's command with a listed CLI case's arguments,
// stdin and environment, in its directory, as a binding would.
func runFake(t *testing.T, e *e2e.Example, fake cfgschema.Fake, in *harness.CLIInput) *harness.CLIOutput {
	t.Helper()
	stdin := []byte{}
	if in.Stdin != nil {
		stdin = []byte(*in.Stdin)
	} else if in.StdinBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(in.StdinBase64)
		if err != nil {
			t.Fatal(err)
		}
		stdin = b
	}
	var stdout, stderr bytes.Buffer
	code := execFake(e.Dir, fake, in.Dir, in.Args, bytes.NewReader(stdin), &stdout, &stderr, nil)
	o, e2 := stdout.String(), stderr.String()
	return &harness.CLIOutput{Stdout: &o, Stderr: &e2, ExitCode: code}
}

// execFake runs fake.command (relative to the project dir root) with args
// in dir, and returns its exit code (-1 when it could not start).
func execFake(root string, fake cfgschema.Fake, dir string, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	name := fake.Command[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		name = filepath.Join(root, name)
	}
	cmd := exec.Command(name, append(append([]string(nil), fake.Command[1:]...), args...)...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = cmp(dir, root), stdin, stdout, stderr
	cmd.Env = append(os.Environ(), env...)
	for k, v := range fake.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cassettetestDoor runs TestCassettetestDoor in a child process of this
// test binary, in the example's environment, and reads its verdicts from
// go test's output.
func cassettetestDoor(t *testing.T, e *e2e.Example, adapter string) doorVerdict {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCassettetestDoor$", "-test.v", "-test.count=1")
	cmd.Dir = e.Dir
	cmd.Env = append(append([]string(nil), e.Env...), childDir+"="+filepath.Join("cassettes", adapter)) // as a test names its testdata
	outb, _ := cmd.CombinedOutput()
	return parseGoTest(t, string(outb), adapter)
}

var (
	runLine    = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): TestCassettetestDoor/(\S+)`)
	fatalLine  = regexp.MustCompile(`cassettetest: error\[(E_[A-Z0-9_]+)\]`)
	errorLine  = regexp.MustCompile(`^\s*\S+\.go:\d+: (\S+): (E_[A-Z0-9_]+): `)
	driftLine  = regexp.MustCompile(`^\s*\S+\.go:\d+: (\S+) drifted from \S+:$`)
	boundaries = regexp.MustCompile(`^\s*(--- (PASS|FAIL|SKIP): |=== (RUN|CONT|PAUSE|NAME) )`)
)

// parseGoTest reads the child's -test.v output: a subtest per scenario,
// passed or failed, with cassettetest's message (the drift text, or the
// reason code of an error).
func parseGoTest(t *testing.T, out, adapter string) doorVerdict {
	t.Helper()
	v := doorVerdict{Exit: -1, Cases: map[string]caseVerdict{}}
	if m := fatalLine.FindStringSubmatch(out); m != nil {
		v.Reason = m[1]
		return v
	}
	lines := strings.Split(out, "\n")
	msgs := map[string]caseVerdict{}
	for i := 0; i < len(lines); i++ {
		if m := errorLine.FindStringSubmatch(lines[i]); m != nil {
			msgs[m[1]] = caseVerdict{Status: verdict.StatusError, Reason: m[2]}
			continue
		}
		m := driftLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		var text []string
		for i++; i < len(lines) && !boundaries.MatchString(lines[i]) && !driftLine.MatchString(lines[i]); i++ {
			text = append(text, lines[i])
		}
		i--
		msgs[m[1]] = caseVerdict{Status: verdict.StatusFail, Explain: strings.Join(text, "\n")}
	}
	for _, l := range lines {
		m := runLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		id := adapter + "/" + m[2]
		switch m[1] {
		case "PASS":
			v.Cases[id] = caseVerdict{Status: verdict.StatusPass}
		case "FAIL":
			c, ok := msgs[id]
			if !ok {
				t.Errorf("cassettetest failed %s without a message cassette gives:\n%s", id, out)
			}
			v.Cases[id] = c
		}
	}
	if len(v.Cases) == 0 {
		t.Logf("cassettetest ran no case:\n%s", out)
	}
	return v
}

// TestCassettetestDoor is the child: cassettetest.VerifyCLI over the
// directory CROSSDOOR_DIR names, the fake its project declares run by a
// CLIFunc.
func TestCassettetestDoor(t *testing.T) {
	dir := os.Getenv(childDir)
	if dir == "" {
		t.Skip("run by TestSameVerdictThroughEveryDoor in a child process")
	}
	p, err := workspace.Find(dir)
	if err != nil {
		t.Fatalf("cassettetest: %v", err)
	}
	root, _ := os.Getwd()
	fake := p.Config.Adapters[filepath.Base(dir)].Fake
	cassettetest.VerifyCLI(t, func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
		return execFake(root, fake, cfgschema.ResolvePath(root, fake.Dir), args, stdin, stdout, stderr, env)
	}, dir)
}

// errorReason is the reason code of a command's `error[REASON]:` line.
func errorReason(stderr string) string {
	if m := regexp.MustCompile(`(?m)^error\[(E_[A-Z0-9_]+)\]`).FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// errorMessage is the message of a command's `error[REASON]:` line.
func errorMessage(stderr string) string {
	if m := regexp.MustCompile(`(?m)^error\[E_[A-Z0-9_]+\]: (.*)$`).FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// unindent removes the indentation every line of s shares (go test's log
// indents what a test prints) and the blank lines at its end.
func unindent(s string) string {
	lines := strings.Split(strings.TrimRight(s, " \n"), "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

func replace(t *testing.T, path, old, new string) {
	t.Helper()
	data := e2e.ReadFile(t, path)
	if !strings.Contains(data, old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	e2e.WriteFile(t, path, strings.Replace(data, old, new, 1))
}

func keys(m map[string]caseVerdict) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
