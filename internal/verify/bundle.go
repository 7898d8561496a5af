package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/report"
)

// Bundle fills what a forensic bundle holds of this run besides its
// reports: the cassettes as they were loaded (paths relative to the
// project directory dir) and the fakes' logs (shared fakes', one per
// adapter in order, then per-case fakes'), the environment and the working
// tree as git sees it.
func (o *Outcome) Bundle(b *report.BundleFiles, dir string, order []string, cases []Case) {
	b.Env, b.Git = os.Environ(), GitInfo(dir)
	for _, c := range cases {
		if data := c.Cassette.Source.Bytes; data != nil {
			b.Cassettes = append(b.Cassettes, report.File{Path: relTo(dir, c.Cassette.Path), Data: data})
		}
	}
	seen := map[string]bool{}
	addLog := func(lp string) {
		if lp == "" || seen[lp] {
			return
		}
		seen[lp] = true
		if data, err := os.ReadFile(lp); err == nil {
			b.Logs = append(b.Logs, report.File{Path: filepath.Base(lp), Data: data})
		}
	}
	for _, name := range order {
		addLog(o.FakeLogs[name])
	}
	for _, r := range o.Results {
		addLog(r.FakeLog)
	}
}

// GitInfo describes the working tree of dir, as far as git can tell (empty
// fields where it cannot), for a bundle.
func GitInfo(dir string) report.GitInfo {
	out := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return report.GitInfo{
		Commit: out("rev-parse", "HEAD"),
		Branch: out("rev-parse", "--abbrev-ref", "HEAD"),
		Dirty:  out("status", "--porcelain") != "",
	}
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}
