package recording

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestSessionRecordsACommandWithItsOwnCredentials: a recording job built
// from the loaded project (what `cassette record -- CMD` runs, reached
// here without the process) runs the command, a real child behind the
// recording proxy, with its own adapter's credential and without the
// other adapter's or the forge's, and saves a cassette holding neither
// value.
func TestSessionRecordsACommandWithItsOwnCredentials(t *testing.T) {
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n" +
		"  greet:\n    kind: cli\n    real: {command: [sh, real.sh], credentials: [GREET_TOKEN]}\n    fake: {command: [sh, real.sh]}\n" +
		"  other:\n    kind: cli\n    real: {command: [sh, real.sh], credentials: [OTHER_TOKEN]}\n    fake: {command: [sh, real.sh]}\n" +
		"refresh:\n  forge: {kind: git, remote: origin, token_env: FORGE_TOKEN}\n"
	for name, data := range map[string]string{"cassette.yaml": cfg,
		"real.sh": "echo \"greet=${GREET_TOKEN:-unset} other=${OTHER_TOKEN:-unset} forge=${FORGE_TOKEN:-unset} plain=${PLAIN:-unset}\"\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CASSETTE_CA_DIR", t.TempDir())
	t.Setenv("GREET_TOKEN", "tok-greet-1234567890")
	t.Setenv("OTHER_TOKEN", "tok-other-0987654321")
	t.Setenv("FORGE_TOKEN", "tok-forge-1122334455")
	t.Setenv("PLAIN", "kept")
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(p, "greet", SessionOptions{Scenario: "env", Recorder: cassettes.Recorder{Version: "test"}})
	defer s.Close()
	if _, err := s.Dial(); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	c, err := s.RecordCommand(context.Background(), CommandRun{Command: []string{"sh", "real.sh"}, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	const want = "greet=[REDACTED] other=unset forge=unset plain=kept\n"
	if got := string(c.Output.Stdout); got != want || stdout.String() != want {
		t.Errorf("the command printed %q (echoed %q); want %q", got, stdout.String(), want)
	}
	if _, err := s.Save(c, s.Path("env")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cassettes", "greet", "env.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "tok-") {
		t.Errorf("the cassette holds a credential value:\n%s", data)
	}
}

// TestSessionKeepsOtherAdaptersCredentialsOut: another adapter's
// credential (or the forge's), which the recorded command never gets from
// the environment, cannot reach the cassette by another way either: one
// written in the command line is refused before the command runs, with a
// next step that refers to the variable (the value is in no message),
// and one the command prints from a file of its own is [REDACTED] in the
// cassette and in what is echoed.
func TestSessionKeepsOtherAdaptersCredentialsOut(t *testing.T) {
	dir := t.TempDir()
	const other, forge = "tok-other-0987654321", "tok-forge-1122334455"
	cfg := "version: 1\nadapters:\n" +
		"  greet:\n    kind: cli\n    real: {command: [sh], credentials: [GREET_TOKEN]}\n    fake: {command: [sh]}\n" +
		"  other:\n    kind: cli\n    real: {command: [sh], credentials: [OTHER_DSN]}\n    fake: {command: [sh]}\n" +
		"refresh:\n  forge: {kind: git, remote: origin, token_env: FORGE_TOKEN}\n"
	for name, data := range map[string]string{"cassette.yaml": cfg, "found.txt": "other=" + other + " forge=" + forge + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CASSETTE_CA_DIR", t.TempDir())
	t.Setenv("GREET_TOKEN", "tok-greet-1234567890")
	t.Setenv("OTHER_DSN", other) // a name no built-in rule calls a credential
	t.Setenv("FORGE_TOKEN", forge)
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(p, "greet", SessionOptions{Scenario: "found", Recorder: cassettes.Recorder{Version: "test"}})
	defer s.Close()
	if _, err := s.Dial(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	_, err = s.RecordCommand(context.Background(), CommandRun{Command: []string{"sh", "-c", "touch " + marker + "; echo " + other}})
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak {
		t.Fatalf("another adapter's credential in the command line: err = %v, want E_SECRET_LEAK", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command ran")
	}
	if text := ce.Error() + ce.NextStep; strings.Contains(text, other) || !strings.Contains(ce.NextStep, "echo ${OTHER_DSN}") ||
		!strings.Contains(ce.Message, "OTHER_DSN is not a credential of adapter greet") {
		t.Errorf("error %q, next %q: want the variable referred to, its value never shown", ce.Error(), ce.NextStep)
	}

	var stdout bytes.Buffer
	c, err := s.RecordCommand(context.Background(), CommandRun{Command: []string{"sh", "-c", "cat " + filepath.Join(dir, "found.txt")}, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	const want = "other=[REDACTED] forge=[REDACTED]\n"
	if got := string(c.Output.Stdout); got != want || stdout.String() != want {
		t.Errorf("the command printed %q (echoed %q); want %q", got, stdout.String(), want)
	}
	if _, err := s.Save(c, s.Path("found")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.Path("found"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), other) || strings.Contains(string(data), forge) {
		t.Errorf("the cassette holds a credential value:\n%s", data)
	}
}
