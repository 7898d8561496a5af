package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

// maxLogBytes bounds the log scrubbed in place; a longer one is cut there.
const maxLogBytes = 64 << 20

// scrubLogs applies the cassette scan's redaction to the logs the reports
// point at (the fakes' logs, which their processes wrote straight into the
// report directory, from an environment that may hold live credentials):
// every declared value and known key format becomes [REDACTED] in place,
// before a report refers to the file. A log that is not a regular file is
// left alone. It returns the logs it changed.
func scrubLogs(dir string, run *Run, declared map[string]string) []string {
	var changed []string
	seen := map[string]bool{}
	for _, c := range run.Cases {
		for _, a := range c.Artifacts {
			if a.Kind != "log" || a.Path == "" {
				continue
			}
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, filepath.FromSlash(p))
			}
			if seen[p] {
				continue
			}
			seen[p] = true
			if scrubFile(p, declared) {
				changed = append(changed, p)
			}
		}
	}
	return changed
}

func scrubFile(path string, declared map[string]string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLogBytes))
	f.Close()
	if err != nil {
		return false
	}
	red := scrubbedLog(data, declared)
	if bytes.Equal(red, data) {
		return false
	}
	return cassettes.WriteFileAtomic(path, red, st.Mode().Perm()) == nil
}

// scrubbedLog is a log's text with every declared value and known key
// format [REDACTED]: the one redaction of the logs the reports point at
// and of their copies in a bundle (data itself when the scan finds none).
func scrubbedLog(data []byte, declared map[string]string) []byte {
	if len(redact.Scan(data, declared)) == 0 {
		return data
	}
	return redact.Redact(data, declared)
}
