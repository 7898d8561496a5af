package normalize

import (
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// jsonBody builds about n bytes of a GitHub-like JSON page.
func jsonBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "node_id": "PR_kw%08d", "number": %d, "state": "open", "title": "Change %d of the frobnicator", `+
			`"created_at": "2026-11-%02dT09:12:44Z", "updated_at": "2026-11-22T14:00:01Z", "uuid": "%08x-1b7d-4c8e-9a55-0d1e2f3a4b5c", `+
			`"head": {"sha": "%x", "ref": "fix-%d"}, "body": "See https://api.github.com/repos/octo/hello/pulls/%d for details."}`,
			1934567890+i, i, 1000+i, i, 1+i%28, i, sha1.Sum([]byte(fmt.Sprint(i))), i, 1000+i)
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

// textBody builds about n bytes of `git log` output.
func textBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "commit %x\nAuthor: Octo Cat <octo@example.com>\nDate:   Sat Nov 22 14:%02d:00 2026 +0000\n\n    Fix frobnicator step %d (see /tmp/build-%d/log.txt)   \n\n", sha1.Sum([]byte(fmt.Sprint(i))), i%60, i, i%13)
	}
	return b.Bytes()
}

var benchNames = []string{"timestamps.ISO8601", "timestamps.RFC1123", "timestamps.ANSIC", "timestamps.unix",
	"sha:full", "sha:short", "uuid", "ports", "paths.tmp", "whitespace.trailing", "json.path:$[*].id"}

func benchBody(b *testing.B, ctype string, body []byte, names []string) {
	p, err := Builtins().Pipeline(names, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}, Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		p.Body(NewState(), ctype, body)
	}
	cpu := processCPU() - cpu0
	// Throughput is reported by SetBytes as MB/s; also report it explicitly so
	// that it survives in benchstat-less logs.
	b.ReportMetric(float64(len(body))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	// Per second of CPU used: what a machine of one's own would see.
	if cpu > 0 {
		b.ReportMetric(float64(len(body))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkJSON1MiB normalizes a 1 MiB JSON page with the usual built-ins;
// json-canonical adds RFC 8785 output; the baselines, measured in the same
// run (with -count N the four alternate), are the redaction every pipeline
// does (so the ratio is what the listed normalizers cost on top) and
// encoding/json's Compact of the same bytes (one pass that reads and
// writes every byte: what any rewrite of the document costs at least).
func BenchmarkJSON1MiB(b *testing.B) {
	body := jsonBody(1 << 20)
	b.Run("builtins", func(b *testing.B) { benchBody(b, "application/json", body, benchNames) })
	b.Run("baseline-json-compact", func(b *testing.B) {
		var out bytes.Buffer
		b.SetBytes(int64(len(body)))
		cpu0 := processCPU()
		for b.Loop() {
			out.Reset()
			if err := json.Compact(&out, body); err != nil {
				b.Fatal(err)
			}
		}
		cpu := processCPU() - cpu0
		b.ReportMetric(float64(len(body))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
		if cpu > 0 { // as benchBody reports it: what a machine of one's own would see
			b.ReportMetric(float64(len(body))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
	})
	b.Run("builtins+canonical", func(b *testing.B) {
		benchBody(b, "application/json", body, append(append([]string(nil), benchNames...), "json.canonical"))
	})
	b.Run("baseline-redact-only", func(b *testing.B) { benchBody(b, "application/json", body, nil) })
}

// BenchmarkText10MiB normalizes 10 MiB of git log output with the same
// built-ins.
func BenchmarkText10MiB(b *testing.B) {
	body := textBody(10 << 20)
	b.Run("builtins", func(b *testing.B) { benchBody(b, "text/plain", body, benchNames) })
	b.Run("baseline-redact-only", func(b *testing.B) { benchBody(b, "text/plain", body, nil) })
}

func TestBenchBodiesAreRealistic(t *testing.T) {
	// The benchmark inputs must actually exercise the normalizers.
	p, err := Builtins().Pipeline(benchNames, Options{TempDirs: []string{"/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(p.Body(NewState(), "application/json", jsonBody(4096)))
	for _, want := range []string{"<ISO8601>", "<uuid:", "<sha:", `"id": "<id:`} {
		if !strings.Contains(out, want) {
			t.Errorf("normalized JSON lacks %s", want)
		}
	}
	out = string(p.Body(NewState(), "text/plain", textBody(4096)))
	for _, want := range []string{"<ANSIC>", "<sha:", "<tmp:", ")\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("normalized text lacks %q", want)
		}
	}
}

// BenchmarkJSON1MiBScan is the part of BenchmarkJSON1MiB/builtins that is
// the streamed engine's one validating scan (stream.go), next to
// encoding/json's Valid of the same bytes in the same run: what the
// normalizers' passes and the writing add is builtins minus scan.
func BenchmarkJSON1MiBScan(b *testing.B) {
	body := jsonBody(1 << 20)
	p, err := Builtins().Pipeline(benchNames, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}, Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
	if err != nil {
		b.Fatal(err)
	}
	if p.stream == nil {
		b.Fatal("the benchmark's pipeline is not streamed")
	}
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := p.stream.scan(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-json-valid", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal("the page is not JSON")
			}
		}
	})
}
