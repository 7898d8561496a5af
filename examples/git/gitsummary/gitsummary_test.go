package main

// The tests of gitsummary run it against the fake git of this example
// (../fakes/git), which answers about the repository make-repo.sh builds.
// Under `cassette observe -- go test ./...` the git on PATH is observe's
// shim, which runs the fake and records each call for `cassette
// coverage`; otherwise TestMain builds the fake and puts it on PATH as git.
// Each test names itself in CASSETTE_TEST, so that coverage says which
// test made a call.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("CASSETTE_OBSERVE_DIR") == "" { // not under cassette observe
		dir, err := os.MkdirTemp("", "gitsummary-fake-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "git"), "../fakes/git").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the fake git: %v\n%s", err, out)
			os.Exit(1)
		}
		os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// named tells the git shim which test is calling.
func named(t *testing.T) { t.Setenv("CASSETTE_TEST", t.Name()) }

func TestRead(t *testing.T) {
	named(t)
	s, err := Read(context.Background(), t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Branch != "main" {
		t.Errorf("branch %q, want main", s.Branch)
	}
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(s.Head) || !strings.HasPrefix(s.Head, s.Short) || len(s.Short) < 7 {
		t.Errorf("head %q, short %q", s.Head, s.Short)
	}
	if len(s.Recent) != 3 || !strings.HasSuffix(s.Recent[0], " Document how to run it") || !strings.HasSuffix(s.Recent[2], " Initial commit") {
		t.Errorf("recent commits %q", s.Recent)
	}
	if strings.Join(s.Changes, "|") != "A  CHANGELOG.md| M main.go|?? notes.txt" {
		t.Errorf("changes %q", s.Changes)
	}
	if !strings.Contains(s.LastStat, "README.md") || !strings.Contains(s.LastStat, "Document how to run it") {
		t.Errorf("last commit:\n%s", s.LastStat)
	}
	if s.Toplevel == "" {
		t.Error("no toplevel")
	}
}

func TestReadFewerCommits(t *testing.T) {
	named(t)
	s, err := Read(context.Background(), t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Recent) != 1 {
		t.Errorf("recent commits %q, want one", s.Recent)
	}
}

func TestString(t *testing.T) {
	s := &Summary{Toplevel: "/src/greet", Branch: "main", Short: "65a7145", Recent: []string{"65a7145 Document how to run it"},
		LastStat: "commit 65a7145…"}
	want := "/src/greet: on branch main at 65a7145\n\nlast 1 commits:\n  65a7145 Document how to run it\n\nnothing changed\n\nlast commit:\ncommit 65a7145…\n"
	if got := s.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
