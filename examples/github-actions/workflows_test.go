package githubactions_test

// The workflows cannot run here; these tests check what can be checked
// without GitHub: each file parses, has the shape GitHub requires, and wires
// cassette's reports to the actions that consume them.

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
)

type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency map[string]any    `yaml:"concurrency"`
	Jobs        map[string]struct {
		RunsOn         string `yaml:"runs-on"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Steps          []step `yaml:"steps"`
	} `yaml:"jobs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	If    string            `yaml:"if"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func load(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// steps returns the steps of the workflow's only job.
func steps(t *testing.T, w *workflow) []step {
	t.Helper()
	if len(w.Jobs) != 1 {
		t.Fatalf("want one job, got %d", len(w.Jobs))
	}
	for name, j := range w.Jobs {
		if j.RunsOn == "" || len(j.Steps) == 0 || j.TimeoutMinutes == 0 {
			t.Fatalf("job %s: runs-on %q, %d steps, timeout-minutes %d: each is required", name, j.RunsOn, len(j.Steps), j.TimeoutMinutes)
		}
		return j.Steps
	}
	return nil
}

func find(steps []step, uses string) *step {
	for i := range steps {
		if strings.HasPrefix(steps[i].Uses, uses) {
			return &steps[i]
		}
	}
	return nil
}

// findWith is find for the step that also has with.key = value.
func findWith(steps []step, uses, key, value string) *step {
	for i := range steps {
		if strings.HasPrefix(steps[i].Uses, uses) && steps[i].With[key] == value {
			return &steps[i]
		}
	}
	return nil
}

// uploadsReportHTML checks that report.html is kept as an artifact of its
// own, also when cassette failed (a drift is when it is needed).
func uploadsReportHTML(t *testing.T, ss []step, dir string) {
	t.Helper()
	s := findWith(ss, "actions/upload-artifact@", "path", dir+"/report.html")
	if s == nil {
		t.Fatalf("no actions/upload-artifact step keeps %s/report.html", dir)
	}
	if s.With["name"] == "" || !strings.Contains(s.If, "cancelled()") {
		t.Errorf("report.html artifact: name %q, if %q; it needs a name and must run when cassette failed", s.With["name"], s.If)
	}
}

func TestVerifyWorkflow(t *testing.T) {
	var w workflow
	load(t, "verify.yml", &w)
	if _, ok := w.On["pull_request"]; !ok {
		t.Errorf("on: %v; verify must run on pull_request", w.On)
	}
	if w.Permissions["security-events"] != "write" {
		t.Errorf("permissions: %v; uploading SARIF needs security-events: write", w.Permissions)
	}
	ss := steps(t, &w)
	run := find(ss, "./.github/actions/cassette")
	if run == nil || run.With["command"] != "verify" || run.With["report-dir"] == "" {
		t.Fatalf("no step runs the cassette action with command verify and a report-dir: %+v", ss)
	}
	dir := run.With["report-dir"]
	tests := []struct {
		uses, key, want string
	}{
		{"github/codeql-action/upload-sarif@", "sarif_file", dir + "/sarif.json"},
		{"dorny/test-reporter@", "path", dir + "/junit.xml"},
		{"actions/upload-artifact@", "path", dir + "/"},
	}
	uploadsReportHTML(t, ss, dir)
	for _, tt := range tests {
		t.Run(tt.uses, func(t *testing.T) {
			s := findWith(ss, tt.uses, tt.key, tt.want)
			if s == nil {
				t.Fatalf("no step uses %s", tt.uses)
			}
			if s.With[tt.key] != tt.want {
				t.Errorf("%s: with.%s = %q, want %q", tt.uses, tt.key, s.With[tt.key], tt.want)
			}
			if !strings.Contains(s.If, "cancelled()") {
				t.Errorf("%s runs only when verify passed (if: %q): drift reports would never be uploaded", tt.uses, s.If)
			}
		})
	}
}

func TestRefreshWorkflow(t *testing.T) {
	var w workflow
	load(t, "refresh.yml", &w)
	sched, ok := w.On["schedule"].([]any)
	if !ok || len(sched) != 1 {
		t.Fatalf("on.schedule: %v; want one cron entry", w.On["schedule"])
	}
	spec, _ := sched[0].(map[string]any)["cron"].(string)
	s, err := cron.ParseStandard(spec)
	if err != nil {
		t.Fatalf("on.schedule cron %q: %v", spec, err)
	}
	// Weekly: two consecutive runs are seven days apart.
	first := s.Next(mustTime(t))
	if gap := s.Next(first).Sub(first); gap.Hours() != 7*24 {
		t.Errorf("cron %q runs every %v, want weekly", spec, gap)
	}
	for _, p := range []string{"contents", "pull-requests", "issues"} {
		if w.Permissions[p] != "write" {
			t.Errorf("permissions.%s = %q; refresh needs write to push branches, open PRs and file issues", p, w.Permissions[p])
		}
	}
	ss := steps(t, &w)
	if co := find(ss, "actions/checkout@"); co == nil || co.With["fetch-depth"] != "0" {
		t.Errorf("checkout must fetch the whole history (fetch-depth: 0): %+v", co)
	}
	run := find(ss, "./.github/actions/cassette")
	if run == nil || run.With["command"] != "refresh" || run.With["args"] != "--once" {
		t.Fatalf("no step runs cassette refresh --once: %+v", ss)
	}
	if run.Env["GITHUB_TOKEN"] != "${{ secrets.GITHUB_TOKEN }}" {
		t.Errorf("refresh gets no GITHUB_TOKEN: env %v", run.Env)
	}
	if run.With["report-dir"] == "" {
		t.Fatalf("refresh writes its reports to no report-dir: %+v", run.With)
	}
	uploadsReportHTML(t, ss, run.With["report-dir"])
}

func TestCompositeAction(t *testing.T) {
	var a struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Inputs      map[string]struct {
			Description string `yaml:"description"`
			Required    bool   `yaml:"required"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Description string `yaml:"description"`
			Value       string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				step             `yaml:",inline"`
				WorkingDirectory string `yaml:"working-directory"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	load(t, "action.yml", &a)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("name %q, description %q, runs.using %q: a composite action needs all three", a.Name, a.Description, a.Runs.Using)
	}
	for _, in := range []string{"command", "args", "report-dir", "working-directory", "source"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %s is missing", in)
		}
	}
	for i, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("runs.steps[%d] (%s): a composite run step needs a shell", i, s.Name)
		}
		if s.Run != "" {
			if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
				t.Errorf("runs.steps[%d] (%s): bash -n: %v\n%s", i, s.Name, err, out)
			}
		}
		// Inputs reach scripts through env, never spliced into the script.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("runs.steps[%d] (%s) splices an expression into its script; pass it through env", i, s.Name)
		}
	}
	if !strings.Contains(a.Outputs["exit-code"].Value, "steps.run.outputs.exit-code") {
		t.Errorf("outputs.exit-code = %q", a.Outputs["exit-code"].Value)
	}
}

func mustTime(t *testing.T) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, "2026-11-23T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
