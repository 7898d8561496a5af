package cassettes

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchInteraction is interaction i of a generated cassette: a GET with
// the headers a client sends and a ~600-byte pretty-printed JSON answer.
func benchInteraction(i int) Interaction {
	var body strings.Builder
	body.WriteString("{\n")
	fmt.Fprintf(&body, "  \"id\": %d,\n  \"node_id\": \"U%07d\",\n", i, i)
	fmt.Fprintf(&body, "  \"name\": \"item-%d\",\n  \"full_name\": \"owner/item-%d\",\n", i, i)
	body.WriteString("  \"private\": false,\n  \"description\": \"a generated item\",\n")
	fmt.Fprintf(&body, "  \"url\": \"https://api.example.com/v1/items/%d\",\n", i)
	body.WriteString("  \"created_at\": \"2026-11-22T14:00:00Z\", \"updated_at\": \"2026-11-22T14:05:00Z\",\n")
	body.WriteString("  \"stargazers_count\": 42, \"watchers_count\": 42, \"language\": \"Go\", \"forks_count\": 7,\n")
	body.WriteString("  \"topics\": [\"cassette\", \"replay\", \"benchmark\"],\n")
	body.WriteString("  \"owner\": {\"login\": \"owner\", \"id\": 1, \"type\": \"Organization\", \"site_admin\": false},\n")
	body.WriteString("  \"license\": {\"key\": \"mit\", \"name\": \"MIT License\", \"spdx_id\": \"MIT\"}\n}\n")
	return Interaction{
		ID: i,
		Request: Request{
			Host:    "api.example.com",
			URL:     fmt.Sprintf("https://api.example.com/v1/items/%d?page=%d", i, i%10),
			Method:  "GET",
			Headers: http.Header{"Accept": {"application/json"}, "User-Agent": {"bench/1.0"}, "Authorization": {"[REDACTED]"}},
		},
		Response: Response{
			ContentLength: int64(body.Len()),
			Body:          Body(body.String()),
			Headers: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Date": {"Sun, 22 Nov 2026 14:00:00 GMT"},
				"Etag": {fmt.Sprintf("W/\"%08x\"", i*2654435761%(1<<32))}, "X-Request-Id": {fmt.Sprintf("req-%08d", i)}},
			Status: "200 OK", Code: 200, Duration: Duration(12_500_000),
		},
	}
}

// writeBenchCassettes writes n interactions into files cassettes of
// adapter bench under dir and returns their paths. The YAML is Marshal's,
// produced a batch at a time so the generator itself stays small in memory.
func writeBenchCassettes(tb testing.TB, dir string, n, files int) []string {
	tb.Helper()
	var paths []string
	per := (n + files - 1) / files
	for f := 0; f < files; f++ {
		lo, hi := f*per, min((f+1)*per, n)
		head := &Cassette{Cassette: SchemaVersion, Version: GoVCRVersion, Adapter: "bench", Scenario: fmt.Sprintf("load-%d", f), Kind: KindHTTP}
		var buf bytes.Buffer
		for i := lo; i < hi; i += 1000 {
			part := *head
			for j := i; j < min(i+1000, hi); j++ {
				part.Interactions = append(part.Interactions, benchInteraction(j))
			}
			data, err := Marshal(&part)
			if err != nil {
				tb.Fatal(err)
			}
			if i > lo {
				_, data, _ = bytes.Cut(data, []byte("\ninteractions:\n"))
			}
			buf.Write(data)
		}
		p := filepath.Join(dir, "bench", fmt.Sprintf("load-%d.yaml", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestWriteBenchCassettes writes the generated cassettes to
// $CASSETTE_BENCH_DIR for measuring `cassette validate` from outside.
func TestWriteBenchCassettes(t *testing.T) {
	dir := os.Getenv("CASSETTE_BENCH_DIR")
	if dir == "" {
		t.Skip("set CASSETTE_BENCH_DIR (and CASSETTE_BENCH_N, CASSETTE_BENCH_FILES) to write the benchmark cassettes")
	}
	n, files := 100_000, 4
	fmt.Sscan(os.Getenv("CASSETTE_BENCH_N"), &n)
	fmt.Sscan(os.Getenv("CASSETTE_BENCH_FILES"), &files)
	for _, p := range writeBenchCassettes(t, dir, n, files) {
		st, _ := os.Stat(p)
		t.Logf("%s: %d bytes", p, st.Size())
	}
}
