package recording

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC) }

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestRecordCLI(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		stdin      string
		wantStdout string
		wantStderr string
		wantExit   int
	}{
		{name: "stdout and exit 0", script: `echo hello; echo '[1,2]'`, wantStdout: "hello\n[1,2]\n"},
		{name: "stdin is fed", script: `tr a-z A-Z`, stdin: "shout\n", wantStdout: "SHOUT\n"},
		{name: "stderr and a failing exit code are recorded", script: `echo oops >&2; exit 3`, wantStderr: "oops\n", wantExit: 3},
		{name: "binary output", script: `printf '\377\000\001'`, wantStdout: "\xff\x00\x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := RecordCLI(context.Background(), CLIOptions{
				Meta:    Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
				Command: "sh", Args: []string{"-c", tt.script}, Stdin: []byte(tt.stdin),
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind != cfgschema.KindCLI || c.Input.Command != "sh" || string(c.Input.Stdin) != tt.stdin {
				t.Errorf("input = %+v", c.Input)
			}
			if got := string(c.Output.Stdout); got != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", got, tt.wantStdout)
			}
			if got := string(c.Output.Stderr); got != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", got, tt.wantStderr)
			}
			if c.Output.ExitCode != tt.wantExit {
				t.Errorf("exit = %d, want %d", c.Output.ExitCode, tt.wantExit)
			}
		})
	}
}

func TestRecordCLIGolden(t *testing.T) {
	c, err := RecordCLI(context.Background(), CLIOptions{
		Meta: Meta{Adapter: "gh", Scenario: "pr-list", Normalizers: []string{"timestamps.ISO8601"},
			Recorder: cassettes.Recorder{Version: "0.0.0-test", SHA: "abc1234"}, Now: fixedNow},
		Command:     "sh",
		Args:        []string{"-c", `echo "[{\"number\":1,\"title\":\"first\"}]"; echo "token=$GH_TOKEN" >&2`},
		Env:         map[string]string{"GH_REPO": "owner/name"},
		Credentials: []string{"GH_TOKEN"},
		Environ:     []string{"PATH=" + os.Getenv("PATH"), "GH_TOKEN=" + plantedValue},
		LookupEnv:   env(map[string]string{"GH_TOKEN": plantedValue}),
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Path = filepath.Join(t.TempDir(), "pr-list.yaml")
	got, err := cassettes.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "cli-pr-list.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./recorder -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("cassette differs from %s (review, then -update):\n%s", golden, got)
	}
	// It is a cassette the loader accepts, as written.
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cassettes.Load(c.Path, cassettes.LoadOptions{}); err != nil {
		t.Errorf("the recorded cassette does not load: %v", err)
	}
}

func TestRecordCLIErrors(t *testing.T) {
	tests := []struct {
		name       string
		opts       CLIOptions
		wantReason outcome.Reason
	}{
		{"no command", CLIOptions{}, outcome.EUsage},
		{"command not found", CLIOptions{Command: "cassette-no-such-command-xyz"}, outcome.EUsage},
		{"timeout kills the child", CLIOptions{Command: "sh", Args: []string{"-c", "exec sleep 30"}, Timeout: 50 * time.Millisecond}, outcome.ETimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := RecordCLI(context.Background(), tt.opts)
			var ce *outcome.Error
			if !errors.As(err, &ce) || ce.Reason != tt.wantReason {
				t.Fatalf("err = %v, want reason %s", err, tt.wantReason)
			}
			if ce.NextStep == "" {
				t.Errorf("no next step in %v", ce)
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("the child was not killed")
			}
		})
	}
}

func TestRerecordCLIRunsTheRecordedInput(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "sh", Scenario: "upper", Path: "cassettes/sh/upper.yaml",
		Input: &cassettes.Input{Command: "sh", Args: []string{"-c", "tr a-z A-Z"}, Stdin: "abc\n"}}
	c, err := RerecordCLI(context.Background(), old, CLIOptions{Meta: Meta{Now: fixedNow}, RealCommand: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Output.Stdout) != "ABC\n" || c.Path != old.Path || c.Scenario != "upper" || c.Adapter != "sh" {
		t.Errorf("got %+v / %+v", c, c.Output)
	}
}

// TestRecordCLIMissingDir: a real.dir that does not exist is named as
// such (exec said the program itself was missing: "cannot run git:
// install it", with git installed), with its field and a next step that
// creates it.
func TestRecordCLIMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	_, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "git", Scenario: "s", Now: fixedNow}, Command: "sh", Args: []string{"-c", "true"}, Dir: dir})
	ce := outcome.AsError(err)
	if err == nil || !strings.Contains(ce.Message, "working directory "+dir) || len(ce.Problems) != 1 || ce.Problems[0].Field != "adapters.git.real.dir" ||
		ce.NextStep != "mkdir -p "+dir {
		t.Fatalf("got %v (problems %+v, next %q)", err, ce.Problems, ce.NextStep)
	}
}

// TestRecordCLIEchoRedactsWhatOutputHoldsByName: a value the command
// prints under a credential name is learned before anything is echoed, so
// the CI log shows it nowhere (stderr echoed it raw: only the cassette,
// redacted after the run, was clean).
func TestRecordCLIEchoRedactsWhatOutputHoldsByName(t *testing.T) {
	const secret = "s3cr3t-Value-8f2a9c"
	script := filepath.Join(t.TempDir(), "login.sh") // the value is the command's output, not in its arguments
	if err := os.WriteFile(script, []byte(`echo 'retrying with `+secret+`' >&2; echo '{"access_token": "`+secret+`"}'`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	c, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
		Command: "sh", Args: []string{script}, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"echoed stdout": stdout.String(), "echoed stderr": stderr.String(),
		"cassette stdout": string(c.Output.Stdout), "cassette stderr": string(c.Output.Stderr)} {
		if strings.Contains(got, secret) {
			t.Errorf("%s holds the value: %q", name, got)
		}
	}
	if !strings.Contains(stderr.String(), "retrying with") {
		t.Errorf("stderr was not echoed: %q", stderr.String())
	}
}
