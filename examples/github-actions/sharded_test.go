package githubactions_test

// The sharded workflow cannot run here either. TestShardedWorkflow checks its
// shape; TestShardedWorkflowRuns plays its data flow on this machine: the
// composite action's own script runs each matrix shard (real cassette binary,
// the demo's real fakes), the upload and download of artifacts are copies
// under the names the workflow gives them, and the merge step runs through
// the action as the workflow calls it.

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
	"github.com/cassette-dev/cassette/internal/verify"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-actions-e2e-", &cassetteBin)) }

type shardedWorkflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        struct {
		Verify struct {
			job      `yaml:",inline"`
			Strategy struct {
				FailFast *bool `yaml:"fail-fast"`
				Matrix   struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
		} `yaml:"verify"`
		Merge struct {
			job   `yaml:",inline"`
			Needs string `yaml:"needs"`
			If    string `yaml:"if"`
		} `yaml:"merge"`
	} `yaml:"jobs"`
}

type job struct {
	Name           string            `yaml:"name"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Steps          []step            `yaml:"steps"`
}

// all returns every step that uses the action (prefix).
func all(steps []step, uses string) []*step {
	var out []*step
	for i := range steps {
		if strings.HasPrefix(steps[i].Uses, uses) {
			out = append(out, &steps[i])
		}
	}
	return out
}

func TestShardedWorkflow(t *testing.T) {
	var w shardedWorkflow
	load(t, "verify-sharded.yml", &w)
	if _, ok := w.On["pull_request"]; !ok {
		t.Errorf("on: %v; verify must run on pull_request", w.On)
	}
	v, m := &w.Jobs.Verify, &w.Jobs.Merge
	for name, j := range map[string]*job{"verify": &v.job, "merge": &m.job} {
		if j.RunsOn == "" || j.TimeoutMinutes == 0 || len(j.Steps) == 0 {
			t.Errorf("job %s: runs-on %q, timeout-minutes %d, %d steps: each is required", name, j.RunsOn, j.TimeoutMinutes, len(j.Steps))
		}
	}
	if sh := v.Strategy.Matrix.Shard; len(sh) < 2 || sh[0] != 1 || sh[len(sh)-1] != len(sh) {
		t.Errorf("matrix.shard = %v; want 1, 2, ..., N", sh)
	}
	if ff := v.Strategy.FailFast; ff == nil || *ff {
		t.Error("strategy.fail-fast must be false: a drifting shard would cancel the others and the merge would lack their reports")
	}
	run := find(v.Steps, "./.github/actions/cassette")
	if run == nil || run.With["command"] != "verify" || run.With["shard"] != "${{ matrix.shard }}" || run.With["total"] != "${{ strategy.job-total }}" {
		t.Fatalf("the verify job must run the cassette action with command verify, shard ${{ matrix.shard }} and total ${{ strategy.job-total }}: %+v", run)
	}
	up := find(v.Steps, "actions/upload-artifact@")
	if up == nil || !strings.Contains(up.With["name"], "${{ matrix.shard }}") || !strings.Contains(up.If, "cancelled()") {
		t.Errorf("each shard must upload its reports under a name of its own, also when it failed: %+v", up)
	}
	if m.Needs != "verify" || !strings.Contains(m.If, "!cancelled()") {
		t.Errorf("merge: needs %q, if %q; it must wait for every shard and run when one failed", m.Needs, m.If)
	}
	// SARIF goes to code scanning once, from the merge, in one category.
	if s := all(v.Steps, "github/codeql-action/upload-sarif@"); len(s) != 0 {
		t.Errorf("the shards upload SARIF (%d steps): each alert would be uploaded in N categories", len(s))
	}
	sarif := all(m.Steps, "github/codeql-action/upload-sarif@")
	if len(sarif) != 1 || sarif[0].With["category"] == "" || sarif[0].With["category"] != strings.TrimSpace(sarif[0].With["category"]) || strings.Contains(sarif[0].With["category"], "${{") {
		t.Errorf("the merge must upload sarif.json once with one fixed category: %+v", sarif)
	}
	if w.Permissions["security-events"] != "" || m.Permissions["security-events"] != "write" {
		t.Errorf("security-events: write belongs to the merge job only (workflow %v, merge %v)", w.Permissions, m.Permissions)
	}
}

// TestActionInputs: every `with:` a workflow gives the cassette action is an
// input the action declares, and the action declares shard and total.
func TestActionInputs(t *testing.T) {
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"shard", "total"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("action.yml has no input %s", in)
		}
	}
	files, _ := filepath.Glob("*.yml")
	for _, f := range files {
		if f == "action.yml" {
			continue
		}
		var w struct {
			Jobs map[string]struct {
				Steps []step `yaml:"steps"`
			} `yaml:"jobs"`
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, j := range w.Jobs {
			for _, s := range all(j.Steps, "./.github/actions/cassette") {
				for k := range s.With {
					if _, ok := a.Inputs[k]; !ok {
						t.Errorf("%s: job %s, step %q: with.%s is not an input of action.yml", f, name, s.Name, k)
					}
				}
			}
		}
	}
}

// actionSteps returns the steps of the composite action (action.yml's
// shape is checked by TestCompositeAction).
func actionSteps(t *testing.T) []step {
	t.Helper()
	var a struct {
		Runs struct {
			Steps []step `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a.Runs.Steps
}

// runner plays GitHub's part for one workspace.
type runner struct {
	t      *testing.T
	e      *e2e.Example
	script string // the action's run step
	path   string // PATH with the cassette binary first
}

// step runs the cassette action's script with the step's inputs, as a
// composite action runs it, and returns its exit-code output and the job
// summary it wrote.
func (r *runner) step(with map[string]string, vars map[string]string) (code int, summary string) {
	r.t.Helper()
	in := func(k, def string) string {
		v, ok := with[k]
		if !ok {
			return def
		}
		for expr, val := range vars {
			v = strings.ReplaceAll(v, "${{ "+expr+" }}", val)
		}
		if strings.Contains(v, "${{") {
			r.t.Fatalf("with.%s = %q: an expression this test does not know", k, v)
		}
		return v
	}
	dir := r.t.TempDir()
	out, sum := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	env := []string{"PATH=" + r.path, "GITHUB_WORKSPACE=" + r.e.Dir, "GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + sum,
		"CASSETTE_COMMAND=" + in("command", "verify"), "CASSETTE_ARGS=" + in("args", ""), "CASSETTE_REPORT_DIR=" + in("report-dir", "cassette-reports"),
		"CASSETTE_SHARD=" + in("shard", ""), "CASSETTE_TOTAL=" + in("total", "")}
	stdout, stderr, exit := r.e.Run(env, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", r.script)
	outputs, _ := os.ReadFile(out)
	got, ok := strings.CutPrefix(strings.TrimSpace(string(outputs)), "exit-code=")
	code, err := strconv.Atoi(got)
	if !ok || err != nil || code != exit {
		r.t.Fatalf("the action exited %d with outputs %q\nstdout:\n%s\nstderr:\n%s", exit, outputs, stdout, stderr)
	}
	s, _ := os.ReadFile(sum)
	return code, string(s)
}

// artifact copies a directory of the workspace to the artifact store, as
// actions/upload-artifact does.
func artifact(t *testing.T, store, name, src string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(store, name)); err != nil {
		t.Fatal(err)
	}
	e2e.CopyTree(t, src, filepath.Join(store, name))
}

// download copies the artifacts whose names match pattern to path/<name>, as
// actions/download-artifact does with a pattern.
func download(t *testing.T, store, pattern, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(store)
	for _, en := range entries {
		if ok, _ := path.Match(pattern, en.Name()); ok {
			e2e.CopyTree(t, filepath.Join(store, en.Name()), filepath.Join(dst, en.Name()))
		}
	}
}

// cassettesIn lists the cassettes a report.jsonl says were run.
func cassettesIn(t *testing.T, file string) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(e2e.ReadFile(t, file)) {
		var rec struct {
			K      string `json:"k"`
			Inputs struct {
				Cassette string `json:"cassette"`
			} `json:"case_inputs"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if rec.K == "case" {
			out = append(out, rec.Inputs.Cassette)
		}
	}
	return out
}

func TestShardedWorkflowRuns(t *testing.T) {
	var w shardedWorkflow
	load(t, "verify-sharded.yml", &w)
	r := &runner{t: t, path: filepath.Dir(cassetteBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, s := range actionSteps(t) {
		if s.ID == "run" {
			r.script = s.Run
		}
	}
	r.e = e2e.NewExample(t, filepath.Join("..", "demo"), e2e.Config{Cassette: cassetteBin,
		Files: []string{"cassette.yaml", "cassettes", "fakes", "real"}, Module: "github.com/cassette-dev/cassette/examples/demo"})
	v := w.Jobs.Verify
	shards := v.Strategy.Matrix.Shard
	verifyWith := find(v.Steps, "./.github/actions/cassette").With
	up := find(v.Steps, "actions/upload-artifact@")
	down := find(w.Jobs.Merge.Steps, "actions/download-artifact@")
	mergeWith := find(w.Jobs.Merge.Steps, "./.github/actions/cassette").With
	if up == nil || down == nil || mergeWith == nil {
		t.Fatal("the workflow lacks an upload, a download or a merge step")
	}
	// --golden so that the merged reports can be compared byte for byte
	// with an unsharded run's.
	golden := maps.Clone(verifyWith)
	golden["args"] = strings.TrimSpace(golden["args"] + " --golden")
	store := t.TempDir()
	reports := r.e.Path(verifyWith["report-dir"])

	// matrix runs every shard on a fresh runner (no reports of another
	// shard in the workspace) and keeps its reports as an artifact.
	matrix := func(t *testing.T) (codes []int) {
		for _, i := range shards {
			if err := os.RemoveAll(reports); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{"matrix.shard": strconv.Itoa(i), "strategy.job-total": strconv.Itoa(len(shards))}
			code, _ := r.step(golden, vars)
			codes = append(codes, code)
			name := strings.ReplaceAll(up.With["name"], "${{ matrix.shard }}", vars["matrix.shard"])
			artifact(t, store, name, r.e.Path(up.With["path"]))
		}
		download(t, store, down.With["pattern"], r.e.Path(down.With["path"]))
		return codes
	}
	merge := func(t *testing.T) (int, string) {
		if err := os.RemoveAll(reports); err != nil {
			t.Fatal(err)
		}
		return r.step(mergeWith, nil)
	}

	t.Run("pass", func(t *testing.T) {
		r.e.Must(nil, cassetteBin, "verify", "--golden", "--report-dir", "unsharded")
		all := cassettesIn(t, r.e.Path("unsharded/report.jsonl"))
		codes := matrix(t)
		var ran []string
		for k, i := range shards {
			if codes[k] != 0 {
				t.Errorf("shard %d exited %d on the passing demo", i, codes[k])
			}
			// Each shard's report names the cassettes it ran: those ShardOf gives it.
			got := cassettesIn(t, filepath.Join(r.e.Path(down.With["path"]), strings.ReplaceAll(up.With["name"], "${{ matrix.shard }}", strconv.Itoa(i)), "report.jsonl"))
			for _, c := range got { // paths relative to cassette.yaml's directory: shard keys
				if verify.ShardOf(c, len(shards)) != i {
					t.Errorf("shard %d ran %s, which belongs to shard %d", i, c, verify.ShardOf(c, len(shards)))
				}
			}
			ran = append(ran, got...)
		}
		slices.Sort(ran)
		slices.Sort(all)
		if !slices.Equal(ran, all) {
			t.Errorf("the shards ran %v; the unsharded run ran %v", ran, all)
		}
		if code, summary := merge(t); code != 0 {
			t.Errorf("merge step: exit %d, job summary:\n%s", code, summary)
		}
		for _, f := range []string{"report.jsonl", "summary.json", "junit.xml", "sarif.json", "report.html"} {
			if e2e.ReadFile(t, filepath.Join(reports, f)) != e2e.ReadFile(t, r.e.Path("unsharded/"+f)) {
				t.Errorf("merged %s differs from the unsharded run's", f)
			}
		}
	})

	t.Run("shard without total", func(t *testing.T) {
		if code, _ := r.step(map[string]string{"command": "verify", "shard": "1"}, nil); code != 2 {
			t.Errorf("the action with shard but no total: exit %d, want 2", code)
		}
	})

	// The merge step fails the job with `cassette report merge`'s exit code.
	t.Run("drift", func(t *testing.T) {
		r.e.Patch("cassettes/greet/hello.yaml", "Hello, Ada!", "Hi, Ada!")
		defer r.e.Patch("cassettes/greet/hello.yaml", "Hi, Ada!", "Hello, Ada!")
		codes := matrix(t)
		for k, i := range shards {
			want := 0
			if i == verify.ShardOf("cassettes/greet/hello.yaml", len(shards)) {
				want = 1
			}
			if codes[k] != want {
				t.Errorf("shard %d exited %d, want %d", i, codes[k], want)
			}
		}
		if code, summary := merge(t); code != 1 {
			t.Errorf("merge step of a drifting shard set: exit %d, want 1; job summary:\n%s", code, summary)
		}
	})
	t.Run("missing shard", func(t *testing.T) {
		matrix(t)
		lost := strings.ReplaceAll(up.With["name"], "${{ matrix.shard }}", "2")
		if err := os.RemoveAll(filepath.Join(r.e.Path(down.With["path"]), lost)); err != nil {
			t.Fatal(err)
		}
		if code, _ := merge(t); code != 2 {
			t.Errorf("merge step without shard 2: exit %d, want 2", code)
		}
		// The refusal is written as the merged reports, like any error; the
		// upload step leaves its sarif.json alone (it would close the open
		// alerts), by the merge step's exit code.
		if sum := e2e.ReadFile(t, filepath.Join(reports, "summary.json")); !strings.Contains(sum, `"reason_code": "E_USAGE"`) {
			t.Errorf("the merged summary.json does not hold the refusal:\n%s", sum)
		}
		ms := find(w.Jobs.Merge.Steps, "./.github/actions/cassette")
		up := find(w.Jobs.Merge.Steps, "github/codeql-action/upload-sarif@")
		if ms.ID == "" || up == nil || !strings.Contains(up.If, "steps."+ms.ID+".outputs.exit-code != '2'") {
			t.Errorf("the SARIF upload (if: %q) would upload an incomplete merge's sarif.json", up.If)
		}
	})
}

// TestActionScriptsShellcheck: actionlint checks the workflows' run: blocks
// with ShellCheck, but not a composite action's: this test does.
func TestActionScriptsShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("shellcheck is required in CI (CI is set): apt-get install -y shellcheck")
		}
		t.Skip("shellcheck not found; install it with: apt-get update && apt-get install -y shellcheck")
	}
	for i, s := range actionSteps(t) {
		if s.Run == "" {
			continue
		}
		cmd := exec.Command(sc, "--shell=bash", "-")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("action.yml runs.steps[%d] (%s): shellcheck: %v\n%s", i, s.Name, err, out)
		}
	}
}
