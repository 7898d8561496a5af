package git_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeQuickStartRuns runs the README's "Getting started in 5
// minutes" as printed, on a fresh copy of the repository (its tracked
// files with their working-tree content, committed to a new repository: a
// clone of what is being tested): every shell block, in order, in one shell,
// each line required to succeed. Step 3's drift is a line that prints
// verify's exit code, so the test also holds the output to the drift the
// README shows (exit 1, E_CONTRACT_DRIFT) and the last verify to a pass.
func TestReadmeQuickStartRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cassette and runs the quick start (-short)")
	}
	for _, tool := range []string{"git", "bash", "go", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the quick start needs %s: %v", tool, err)
		}
	}
	repo := filepath.Join("..", "..")
	lines := quickStart(t, filepath.Join(repo, "README.md"))
	clone := filepath.Join(t.TempDir(), "cassette")
	copyTracked(t, repo, clone)
	// A clone is a repository: the quick start runs git diff in it.
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=Quick Start", "-c", "user.email=qs@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "the tracked files of the repository under test"}} {
		git := exec.Command("git", args...)
		git.Dir = clone
		git.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}

	var script strings.Builder
	script.WriteString("set -uo pipefail\n")
	for _, l := range lines {
		// Braces keep cd and export in this shell; a failing line stops it.
		fmt.Fprintf(&script, "{ %s\n} || { echo \"README.md:%d failed: %s\" >&2; exit 1; }\n", l.text, l.n, strings.ReplaceAll(l.text, `"`, `\"`))
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = clone
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "CASSETTE") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the quick start failed (%v):\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"error[E_CONTRACT_DRIFT]", "exit 1\n", "FAIL  git/log-oneline"} {
		if !strings.Contains(got, want) {
			t.Errorf("the quick start's output has no %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(got), "run.json}") || strings.Count(got, " 0 failed") < 4 {
		t.Errorf("the quick start's verify runs did not all pass where the README says they do:\n%s", got)
	}
}

type numberedLine struct {
	n    int
	text string
}

// quickStart returns the lines of the shell blocks of the README's quick
// start section, with their line numbers.
func quickStart(t *testing.T, readme string) []numberedLine {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []numberedLine
	in, block := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Getting started in 5 minutes"
		case in && !block && l == "```sh":
			block = true
		case block && l == "```":
			block = false
		case block:
			out = append(out, numberedLine{n, l})
		}
	}
	if len(out) < 10 {
		t.Fatalf("%s: the quick start has only %d shell lines", readme, len(out))
	}
	return out
}

// copyTracked copies the files git tracks in repo (with their working
// tree content) to dst: what a fresh clone holds.
func copyTracked(t *testing.T, repo, dst string) {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z")
	ls.Dir = repo
	list, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(repo, name)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(target, to)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		copyFile(t, src, to, info.Mode().Perm())
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
