package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// Bundle is what a forensic bundle holds of this run's files besides its
// reports (and the environment and GitInfo): the cassettes as they were
// loaded (paths relative to the project directory dir) and the fakes' logs
// (shared fakes', one per adapter in order, then per-case fakes').
func (o *Outcome) Bundle(dir string, order []string, cases []Case) (cassettes, logs []verdict.File) {
	for _, c := range cases {
		if data := c.Cassette.Source.Bytes; data != nil {
			cassettes = append(cassettes, verdict.File{Path: relTo(dir, c.Cassette.Path), Data: data})
		}
	}
	seen := map[string]bool{}
	addLog := func(lp string) {
		if lp == "" || seen[lp] {
			return
		}
		seen[lp] = true
		if data, err := os.ReadFile(lp); err == nil {
			logs = append(logs, verdict.File{Path: filepath.Base(lp), Data: data})
		}
	}
	for _, name := range order {
		addLog(o.FakeLogs[name])
	}
	for _, r := range o.Results {
		addLog(r.FakeLog)
	}
	return cassettes, logs
}

// GitInfo describes the working tree of dir, as far as git can tell (empty
// fields where it cannot), for a bundle.
func GitInfo(dir string) verdict.GitInfo {
	out := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return verdict.GitInfo{
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
