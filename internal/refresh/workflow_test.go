package refresh

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWorkflow checks the GitHub Actions workflow shipped for teams that
// schedule the refresh in CI: valid YAML, a weekly cron, the permissions the
// cycle needs, and the command it runs.
func TestWorkflow(t *testing.T) {
	data, err := os.ReadFile("testdata/cassette-refresh.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Schedule []struct{ Cron string } `yaml:"schedule"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct{ Run string } `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Schedule) != 1 {
		t.Fatalf("schedule: %+v", wf.On.Schedule)
	}
	s, err := ParseSchedule(wf.On.Schedule[0].Cron)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSchedule("@weekly"); err != nil || s == nil {
		t.Fatal(err)
	}
	for _, p := range []string{"contents", "pull-requests", "issues"} {
		if wf.Permissions[p] != "write" {
			t.Errorf("permissions.%s = %q, want write", p, wf.Permissions[p])
		}
	}
	var runs []string
	for _, st := range wf.Jobs["refresh"].Steps {
		runs = append(runs, st.Run)
	}
	if !strings.Contains(strings.Join(runs, "\n"), "cassette refresh --once") {
		t.Errorf("no step runs cassette refresh --once: %q", runs)
	}
}
