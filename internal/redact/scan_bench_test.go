package redact

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// handKept is the scan as it was before the gitleaks rules: 11 patterns,
// each skipped unless one of its literals occurs (bytes.Contains of each).
// It is the baseline BenchmarkScan measures against, in the same run.
var handKept = []struct {
	re   *regexp.Regexp
	lits []string
}{
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,250}\b`), []string{"xox"}},
	{regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}`), []string{"hooks.slack.com"}},
	{regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`), []string{"sk-ant-"}},
	{regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), []string{"sk-"}},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), []string{"AIza"}},
	{regexp.MustCompile(`\b[rs]k_live_[0-9A-Za-z]{16,}\b`), []string{"k_live_"}},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), []string{"eyJ"}},
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)|-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`), []string{"PRIVATE KEY"}},
	{regexp.MustCompile(`(?i)secret[_-]?access[_-]?key["']?\s*(?:[:=]|=>)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), []string{"ccess", "CCESS"}},
}

func scanHandKept(data []byte, declared map[string]string) int {
	n := 0
	for _, p := range handKept {
		for _, l := range p.lits {
			if bytes.Contains(data, []byte(l)) {
				n += len(p.re.FindAllIndex(data, -1))
				break
			}
		}
	}
	for _, v := range declared {
		n += bytes.Count(data, []byte(v))
	}
	return n
}

// benchBodies are 1 MiB texts of the kinds the scan meets: a JSON API
// listing, and the real cassettes of ../shared/testdata (LLM streams,
// OAuth flows, cloud APIs) and of the examples, repeated.
func benchBodies(b *testing.B) map[string][]byte {
	var api bytes.Buffer
	for api.Len() < 1<<20 {
		api.WriteString(`{"id":"b1e2","login":"octocat","url":"https://api.github.com/users/octocat","site_admin":false},`)
	}
	var real bytes.Buffer
	for _, root := range []string{filepath.Join("..", "..", "..", "shared", "testdata"), filepath.Join("..", "..", "examples")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				data, _ := os.ReadFile(p)
				real.Write(data)
			}
			return nil
		})
	}
	if real.Len() == 0 {
		b.Skip("no real cassettes at ../../shared/testdata")
	}
	corpus := real.Bytes()
	for real.Len() < 1<<20 {
		real.Write(corpus)
	}
	return map[string][]byte{"api-json": api.Bytes(), "real-cassettes": real.Bytes()[:1<<20]}
}

// BenchmarkScan measures the scan over 1 MiB bodies (every recorded body is
// scanned) with gitleaks' rules and cassette's against the 11 hand-kept
// patterns it replaced, in the same run: each round scans the body with
// one, then the other (A B A B). It reports the median and the best MB/s
// of each, the median of the per-round ratios and the ratio of the bests.
func BenchmarkScan(b *testing.B) {
	declared := map[string]string{"T": "not-present-value"}
	rules() // built once, as in a process, outside the timing
	bodies := benchBodies(b)
	for _, name := range slices.Sorted(maps.Keys(bodies)) {
		data := bodies[name]
		b.Run(name, func(b *testing.B) {
			var old, cur, ratio []float64
			mbps := func(f func()) float64 {
				t := time.Now()
				f()
				return float64(len(data)) / time.Since(t).Seconds() / 1e6
			}
			for b.Loop() {
				o := mbps(func() { scanHandKept(data, declared) })
				c := mbps(func() { Scan(data, declared) })
				old, cur, ratio = append(old, o), append(cur, c), append(ratio, c/o)
			}
			median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
			b.ReportMetric(median(cur), "MB/s-gitleaks-median")
			b.ReportMetric(slices.Max(cur), "MB/s-gitleaks-best")
			b.ReportMetric(median(old), "MB/s-hand-kept-median")
			b.ReportMetric(slices.Max(old), "MB/s-hand-kept-best")
			b.ReportMetric(median(ratio), "x-vs-hand-kept-median")
			b.ReportMetric(slices.Max(cur)/slices.Max(old), "x-vs-hand-kept-best")
		})
	}
}
