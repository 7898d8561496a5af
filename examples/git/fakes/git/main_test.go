package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	head := repo.sha(2)
	tests := []struct {
		name      string
		args      []string
		stdout    string
		stderrHas string
		exit      int
	}{
		{"rev-parse", []string{"rev-parse", "HEAD"}, head + "\n", "", 0},
		{"rev-parse short", []string{"rev-parse", "--short", "HEAD"}, head[:7] + "\n", "", 0},
		{"abbrev-ref", []string{"rev-parse", "--abbrev-ref", "HEAD"}, "main\n", "", 0},
		{"global options", []string{"--no-pager", "-c", "color.ui=never", "branch", "--show-current"}, "main\n", "", 0},
		{"log -n 1", []string{"log", "--oneline", "-n", "1"}, head[:7] + " Document how to run it\n", "", 0},
		{"log -2", []string{"log", "--oneline", "-2"}, head[:7] + " Document how to run it\n" + repo.sha(1)[:7] + " Add the greet program\n", "", 0},
		{"log --max-count", []string{"log", "--oneline", "--max-count=1"}, head[:7] + " Document how to run it\n", "", 0},
		{"log -n past the root", []string{"log", "--oneline", "-n", "9"}, head[:7] + " Document how to run it\n" + repo.sha(1)[:7] + " Add the greet program\n" + repo.sha(0)[:7] + " Initial commit\n", "", 0},
		{"status -s", []string{"status", "-s"}, "A  CHANGELOG.md\n M main.go\n?? notes.txt\n", "", 0},
		{"log medium", []string{"log", "-n", "1"}, "commit " + head + "\nAuthor: Ada Lovelace <ada@example.com>\nDate:   Mon Nov 2 11:00:00 2026 +0000\n\n    Document how to run it\n", "", 0},
		{"unknown command", []string{"frobnicate"}, "", "'frobnicate' is not a git command", 1},
		{"unfaked status", []string{"status"}, "", "not faked: git status", 129},
		{"unfaked show", []string{"show", "HEAD"}, "", "not faked: git show HEAD", 129},
		{"unfaked log option", []string{"log", "--graph"}, "", "not faked: git log --graph", 129},
		{"no command", nil, "", "usage: git", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &out, &errOut)
			if code != tt.exit || out.String() != tt.stdout || !strings.Contains(errOut.String(), tt.stderrHas) {
				t.Errorf("git %v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr containing %q",
					tt.args, code, out.String(), errOut.String(), tt.exit, tt.stdout, tt.stderrHas)
			}
		})
	}
}

func TestWriteStat(t *testing.T) {
	tests := []struct {
		name  string
		files []FileStat
		want  string
	}{
		{"one file, both kinds", []FileStat{{"README.md", 3, 1}}, " README.md | 4 +++-\n 1 file changed, 3 insertions(+), 1 deletion(-)\n"},
		{"aligned names and counts", []FileStat{{"go.mod", 3, 0}, {"cmd/main.go", 12, 0}},
			" go.mod      |  3 +++\n cmd/main.go | 12 ++++++++++++\n 2 files changed, 15 insertions(+)\n"},
		{"deletions only", []FileStat{{"a", 0, 2}}, " a | 2 --\n 1 file changed, 2 deletions(-)\n"},
		{"mode change only", []FileStat{{"run.sh", 0, 0}}, " run.sh | 0\n 1 file changed, 0 insertions(+), 0 deletions(-)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeStat(tt.files, &b)
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}
