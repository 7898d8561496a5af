package crossdoor_test

// The two bindings as doors: pytest with the cassette_pytest plugin and
// node --test with js/cassette.mjs, each running a contract test (written
// into the fixture) that drives the same built fake as a child process
// per listed case, as a project's own contract test would, and writes
// each verdict the binding got (check's "result" line, as the binding
// holds it) to a file. The runner's exit, the run.json of the reports the
// binding has check write, and the runner's output are read back.

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// pytestContract is the pytest door's contract test: one test per case of
// $CROSSDOOR_ADAPTER, the fake of $CROSSDOOR_FAKE run as a process.
const pytestContract = `import json, os, subprocess

import pytest
from cassette_pytest import enforce

FAKE = json.loads(os.environ["CROSSDOOR_FAKE"])


def run(case):
    cwd = case.cwd or FAKE["root"]
    if not os.path.isabs(cwd):
        cwd = os.path.join(FAKE["root"], cwd)
    env = dict(os.environ, **FAKE["env"])
    return subprocess.run(FAKE["command"] + case.args, input=case.stdin, cwd=cwd, env=env, capture_output=True)


@pytest.mark.cassette(os.environ["CROSSDOOR_ADAPTER"])
def test_crossdoor(cassette_case):
    r = cassette_case.run_cli(run)
    with open(os.environ["CROSSDOOR_OUT"], "a") as f:
        f.write(json.dumps(r.answer) + "\n")
    enforce(r)
`

// nodeContract is the node:test door's: the same test in JavaScript.
const nodeContract = `import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { contract, enforce } from 'CASSETTE_MJS';

const fake = JSON.parse(process.env.CROSSDOOR_FAKE);

function run(c) {
  let cwd = c.cwd || fake.root;
  if (!path.isAbsolute(cwd)) cwd = path.join(fake.root, cwd);
  const r = spawnSync(fake.command[0], [...fake.command.slice(1), ...c.args],
    { input: c.stdin, cwd, env: { ...process.env, ...fake.env } });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
}

contract(process.env.CROSSDOOR_ADAPTER, async (c) => {
  const r = await c.runCLI(run);
  const { passed, path: _, ...answer } = r;
  appendFileSync(process.env.CROSSDOOR_OUT, JSON.stringify(answer) + '\n');
  enforce(r);
});
`

// bindingVerdict is what a binding door said: the verdicts, and what its
// runner printed and exited with.
type bindingVerdict struct {
	doorVerdict
	Runner int    // the runner's exit code
	Output string // its output, stdout and stderr
}

// pytestDoor runs the pytest contract test in the fixture.
func pytestDoor(t *testing.T, e *e2e.Example, adapter string) bindingVerdict {
	t.Helper()
	py := e2e.Python(t)
	e2e.WriteFile(t, e.Path("test_crossdoor.py"), pytestContract)
	reports := e.Path("pytest-reports")
	return bindingDoor(t, e, adapter, reports, py, "-m", "pytest", "-p", "cassette_pytest", "-p", "no:cacheprovider", "-rA",
		"--cassette-report-dir", reports, "test_crossdoor.py")
}

// nodeDoor runs the node:test contract test in the fixture.
func nodeDoor(t *testing.T, e *e2e.Example, adapter string) bindingVerdict {
	t.Helper()
	node := e2e.Node(t)
	mjs, err := filepath.Abs("../../../js/cassette.mjs")
	if err != nil {
		t.Fatal(err)
	}
	e2e.WriteFile(t, e.Path("crossdoor.test.mjs"), strings.Replace(nodeContract, "CASSETTE_MJS", "file://"+filepath.ToSlash(mjs), 1))
	reports := e.Path("node-reports")
	return bindingDoor(t, e, adapter, reports, node, "--test", "--test-reporter=spec", "crossdoor.test.mjs")
}

// bindingDoor runs a runner in the fixture with the fake, the verdict
// file and the report directory in its environment, and reads back what
// the binding said.
func bindingDoor(t *testing.T, e *e2e.Example, adapter, reports, runner string, args ...string) bindingVerdict {
	t.Helper()
	fake := project(t, e).Config.Adapters[adapter].Fake
	command := append([]string(nil), fake.Command...)
	if strings.Contains(command[0], "/") && !filepath.IsAbs(command[0]) {
		command[0] = filepath.Join(e.Dir, command[0])
	}
	env := map[string]string{}
	for k, v := range fake.Env {
		env[k] = v
	}
	spec, err := json.Marshal(map[string]any{"command": command, "env": env, "root": e.Dir})
	if err != nil {
		t.Fatal(err)
	}
	pythonPath, err := filepath.Abs("../../../python")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "verdicts.jsonl")
	cmd := exec.Command(runner, args...)
	cmd.Dir = e.Dir
	for _, kv := range e.Env {
		if !strings.HasPrefix(kv, "NODE_TEST_CONTEXT=") { // a runner's own: this run would be a part of its
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CASSETTE_BIN="+cassetteBin, "PYTHONPATH="+pythonPath, "PYTHONDONTWRITEBYTECODE=1",
		"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "NO_COLOR=1", "CASSETTE_REPORT_DIR="+reports,
		"CROSSDOOR_ADAPTER="+adapter, "CROSSDOOR_FAKE="+string(spec), "CROSSDOOR_OUT="+out)
	output, err := cmd.CombinedOutput()
	b := bindingVerdict{doorVerdict: doorVerdict{Exit: -1, Cases: map[string]caseVerdict{}}, Output: string(output)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		b.Runner = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", runner, err)
	}
	b.Cases = readVerdicts(t, out)
	if run, _, err := report.ReadRun(os.DirFS(reports), reports); err == nil {
		b.Exit, b.Reason = int(run.Exit()), string(run.Reason())
	}
	t.Logf("%s: exit %d; its reports: exit %d %s; %d cases judged", filepath.Base(runner), b.Runner, b.Exit, b.Reason, len(b.Cases))
	return b
}

// readVerdicts reads the contract test's file of check's answers.
func readVerdicts(t *testing.T, path string) map[string]caseVerdict {
	t.Helper()
	cases := map[string]caseVerdict{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return cases // no case was judged
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var a harness.Result
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		cases[a.ID] = caseVerdict{Status: a.Status, Reason: a.Reason, Drifts: a.Drifts, Explain: a.Explain, Blocking: a.Blocking}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// sameAsVerify holds a binding door to verify's verdict and check's
// drift texts: a project verify refuses, the binding refuses with the
// message `cassette cases` gives; else the same exit and reason code of
// the run, the same status, reason code and drifts of each case, check's
// drift text for each failed case, shown by the runner; and a runner that
// fails exactly when verify does.
func sameAsVerify(t *testing.T, name string, v, c doorVerdict, b bindingVerdict) {
	t.Helper()
	if (b.Runner == 0) != (v.Exit == 0) {
		t.Errorf("%s exited %d, verify %d:\n%s", name, b.Runner, v.Exit, b.Output)
	}
	if len(v.Cases) == 0 && v.Exit == 2 { // refused before any case ran
		if len(b.Cases) != 0 || c.Message == "" || !strings.Contains(b.Output, c.Message) {
			t.Errorf("%s judged %d cases of a project verify refuses (%s), or does not say why (%q):\n%s", name, len(b.Cases), v.Reason, c.Message, b.Output)
		}
		return
	}
	if b.Exit != v.Exit || b.Reason != v.Reason {
		t.Errorf("the run: verify says exit %d %s, %s's reports exit %d %s", v.Exit, v.Reason, name, b.Exit, b.Reason)
	}
	if len(b.Cases) != len(v.Cases) {
		t.Errorf("verify judged %d cases, %s %d: %v / %v", len(v.Cases), name, len(b.Cases), keys(v.Cases), keys(b.Cases))
	}
	for id, vc := range v.Cases {
		bc, cc := b.Cases[id], c.Cases[id]
		if vc.Status != bc.Status || vc.Reason != bc.Reason {
			t.Errorf("%s: verify says %s %s, %s %s %s", id, vc.Status, vc.Reason, name, bc.Status, bc.Reason)
		}
		if (len(vc.Drifts) > 0 || len(bc.Drifts) > 0) && !reflect.DeepEqual(vc.Drifts, bc.Drifts) {
			t.Errorf("%s: verify's drifts\n%+v\n%s's\n%+v", id, vc.Drifts, name, bc.Drifts)
		}
		if vc.Status != verdict.StatusFail {
			continue
		}
		if bc.Explain != cc.Explain || bc.Blocking != cc.Blocking {
			t.Errorf("%s: check's drift text (blocking %v)\n%s\n%s's (blocking %v)\n%s", id, cc.Blocking, cc.Explain, name, bc.Blocking, bc.Explain)
		}
		if !bc.Blocking {
			continue // a runner shows a quarantined failure in a line (xfail, todo)
		}
		for _, line := range strings.Split(cc.Explain, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.Contains(b.Output, l) {
				t.Errorf("%s: %s does not show the drift text's line %q:\n%s", id, name, l, b.Output)
				break
			}
		}
	}
}
