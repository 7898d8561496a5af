package report

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// htmlProject returns a failing run over one HTTP cassette (a JSON body and
// a binary one) and one CLI cassette, holding both sides as verify compared
// them: the cassette's in Recorded, the fake's in Actions. The working
// directory is an empty one: the page is rendered from the run alone.
func htmlProject(t *testing.T) *Run {
	t.Helper()
	t.Chdir(t.TempDir())
	cfg := []byte("version: 1\nadapters:\n  shop:\n    kind: http\n    real: {base_url: https://shop.example}\n    fake: {command: [./fake], base_url: http://127.0.0.1:1}\n  tool:\n    kind: cli\n    real: {command: [tool]}\n    fake: {command: [./fake-tool]}\n")
	run := &Run{Tool: Tool{Name: "cassette", Version: "0.0.0-test"}, Command: "verify", Suite: "shop", ConfigPath: "cassette.yaml", ConfigBytes: cfg,
		Inventory: []InventoryItem{NewInventoryItem("cassettes/shop/get-pet.yaml", []byte("a")), NewInventoryItem("cassettes/tool/log.yaml", []byte("b"))}}
	png := append([]byte{0x89, 'P', 'N', 'G', 0xff, 0xfe}, bytes.Repeat([]byte{0x01}, 40)...)
	gotPNG := bytes.Clone(png)
	gotPNG[26] = 0x02
	run.Cases = []verdict.Case{
		{Adapter: "shop", Scenario: "get-pet", CassettePath: "cassettes/shop/get-pet.yaml", Status: verdict.StatusFail,
			Drifts: []verdict.Drift{
				{Class: "value", Field: "interactions[0].response.body", JSONPath: "$.tags[0]", Line: 9, Message: `value drift at interactions[0].response.body $.tags[0]: value changed (want "cat", got "cats")`},
				{Class: "schema", Field: "interactions[0].response.body", JSONPath: "$.owner.email", Line: 9, Message: `schema drift at interactions[0].response.body $.owner.email: added`},
				{Class: "body", Field: "interactions[1].response.body", Line: 20, Message: "body drift at interactions[1].response.body: changed", Diff: "binary bodies differ (46 bytes want, 46 bytes got)\n"},
			},
			Recorded: []verdict.Action{
				{Kind: "http", ID: "interactions[0]", Method: "GET", URL: "https://shop.example/pets/1", StatusCode: 200, Headers: http.Header{"Content-Type": {"application/json"}},
					Body: []byte(`{"id":1,"name":"Tom","tags":["cat","grey"],"owner":{"name":"Ada"}}`)},
				{Kind: "http", ID: "interactions[1]", Method: "GET", URL: "https://shop.example/pets/1/photo", StatusCode: 200, Headers: http.Header{"Content-Type": {"image/png"}},
					Body: png},
			},
			Actions: []verdict.Action{
				{Kind: "http", ID: "interactions[0]", Method: "GET", URL: "https://shop.example/pets/1", StatusCode: 200,
					Body: []byte(`{"id":1,"name":"Tom","tags":["cats","grey"],"owner":{"name":"Ada","email":"ada@example.com"}}`)},
				{Kind: "http", ID: "interactions[1]", Method: "GET", URL: "https://shop.example/pets/1/photo", StatusCode: 200, Body: gotPNG},
			}},
		{Adapter: "tool", Scenario: "log", CassettePath: "cassettes/tool/log.yaml", Status: verdict.StatusFail,
			Drifts: []verdict.Drift{{Class: "body", Field: "output.stdout", Line: 12, Message: `body drift at output.stdout: line "abc Document how to run it" became "abc Document it"`,
				Diff: "--- want\n+++ got\n-abc Document how to run it\n+abc Document it\n"}},
			Recorded: []verdict.Action{{Kind: "proc", ID: "output", Argv: []string{"tool", "log"}, Stdout: []byte("abc Document how to run it\ndef Initial commit\n")}},
			Actions:  []verdict.Action{{Kind: "proc", ID: "output", Argv: []string{"tool", "log"}, Stdout: []byte("abc Document it\ndef Initial commit\n")}}},
		{Adapter: "shop", Scenario: "list", CassettePath: "cassettes/shop/list.yaml", Status: verdict.StatusPass},
	}
	return run
}

func renderHTML(t *testing.T, run *Run) string {
	t.Helper()
	b, err := run.html(Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHTMLShowsBothSidesOfEachDrift(t *testing.T) {
	page := renderHTML(t, htmlProject(t))
	checks := []struct{ what, re string }{
		{"the changed JSON value is marked on both sides", `(?s)recorded \(want\).*<li data-path="\$\.tags\[0\]" class="changed"><mark>.*&#34;cat&#34;.*fake \(got\).*<li data-path="\$\.tags\[0\]" class="changed"><mark>.*&#34;cats&#34;`},
		{"an added member is marked where it exists", `<li data-path="\$\.owner\.email" class="changed"><mark><span class="sr">changed: </span><span class="jk">&#34;email&#34;</span>`},
		{"the container on the way is open", `<li data-path="\$\.owner"><details open>`},
		{"the hex view names the first differing offset", `First difference at offset <strong data-offset="26">0x0000001a \(26\)</strong>`},
		{"the differing byte is marked", `<mark class="first" data-offset="26"><span class="sr">first difference: </span>01</mark>`},
		{"the word diff strikes the lost words", `Document<del><span class="sr">removed: </span> how to run</del> it`},
		{"the exit code is compared", `exit code</th><td class="mono">0</td>`},
		{"the cassette line", `cassettes/shop/get-pet.yaml:9`},
		{"the command that reproduces it", `cassette verify --case shop/get-pet`},
		{"the summary bar", `<li class="pass"><strong>1</strong>passed</li>`},
		{"light and dark", `prefers-color-scheme: dark`},
	}
	for _, c := range checks {
		if !regexp.MustCompile(c.re).MatchString(page) {
			t.Errorf("%s: no match for %s", c.what, c.re)
		}
	}
	if t.Failed() {
		t.Log(page)
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	page := renderHTML(t, htmlProject(t))
	for _, bad := range []string{"<script", "<link", "<img", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q: it must open offline, without script", bad)
		}
	}
	if m := regexp.MustCompile(`(?i)(src|href)="https?:`).FindString(page); m != "" {
		t.Errorf("report.html loads or links %s", m)
	}
}

// A run that does not hold a case's recorded side (a run.json of an
// earlier version, a producer that gave only the drifts) shows that case's
// drifts and their diffs, and says why there is no side by side.
func TestHTMLWithoutTheRecordedSide(t *testing.T) {
	run := htmlProject(t)
	run.Cases[1].Recorded = nil
	page := renderHTML(t, run)
	if !strings.Contains(page, "The recorded side is not shown: this run does not hold it") {
		t.Error("no note for the case without its recorded side")
	}
	if !strings.Contains(page, "<ins><span class=\"sr\">added: </span>+abc Document it\n</ins>") {
		t.Error("the drift's own diff is not shown")
	}
	if !strings.Contains(page, `data-path="$.tags[0]" class="changed"`) {
		t.Error("the other case lost its sides")
	}
}

// The page is the run's, wherever it is rendered: the working directory
// holding other bytes under the cassettes' paths changes nothing.
func TestHTMLReadsNothingFromDisk(t *testing.T) {
	want := renderHTML(t, htmlProject(t))
	run := htmlProject(t)
	for _, c := range run.Cases {
		if err := os.MkdirAll(filepath.Dir(c.CassettePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.CassettePath, []byte("cassette: 1\nversion: 2\nadapter: x\nscenario: y\ninteractions: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := renderHTML(t, run); got != want {
		t.Error("report.html depends on the files in the working directory")
	}
}

// Write puts report.html with the other reports, and `cassette report html`
// (ReadRun, then WriteHTML) rebuilds the same page from run.json.
func TestWriteHTMLRebuildsFromRunJSON(t *testing.T) {
	run := htmlProject(t)
	dir := filepath.Join(t.TempDir(), "reports")
	if err := Write(dir, run, Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(dir, FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, FileHTML)); err != nil {
		t.Fatal(err)
	}
	back, opts, err := ReadRun(os.DirFS(dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, back, opts); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("report.html rebuilt from run.json differs from the one Write wrote")
	}
}

// The page is secret-scanned like every report: a declared value in a
// fake's output stops the write.
func TestWriteHTMLRefusesASecret(t *testing.T) {
	run := htmlProject(t)
	run.Cases[1].Actions[0].Stdout = []byte("token s3cr3t-value-123\n")
	dir := t.TempDir()
	err := WriteHTML(dir, run, Options{Declared: map[string]string{"TOOL_TOKEN": "s3cr3t-value-123"}})
	if ce := outcome.AsError(err); err == nil || ce.Reason != outcome.ESecretLeak {
		t.Fatalf("err = %v, want E_SECRET_LEAK", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileHTML)); err == nil {
		t.Error("report.html was written despite the finding")
	}
}

func TestStreamViewOpensTheFirstDifferingRecord(t *testing.T) {
	want := []byte("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
	got := []byte("{\"n\":1}\n{\"n\":20}\n{\"n\":3}\n{\"n\":4}\n")
	b := bodyView("s", "application/x-ndjson", want, got, []string{"$[1].n"})
	if b.Kind != "jsonl" || len(b.Records) != 4 {
		t.Fatalf("kind %s, %d records", b.Kind, len(b.Records))
	}
	states := []string{}
	for _, r := range b.Records {
		states = append(states, r.State)
	}
	if strings.Join(states, ",") != "same,changed,same,added" || !b.Records[1].Open || b.Records[3].Open || b.Records[0].Open {
		t.Errorf("states %v, open %v %v", states, b.Records[1].Open, b.Records[3].Open)
	}
	if !strings.Contains(string(b.Records[1].Got), `<li data-path="$[1].n" class="changed">`) {
		t.Errorf("record 1 does not mark $[1].n:\n%s", b.Records[1].Got)
	}
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"abc", "abc", -1}, {"abc", "abd", 2}, {"ab", "abc", 2}, {"", "x", 0}, {"xbc", "abc", 0}} {
		if got := firstDifference([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("firstDifference(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// In golden mode report.html is byte-identical across runs over the same
// inputs, like every other report.
func TestHTMLGoldenModeIsStable(t *testing.T) {
	a, err := htmlProject(t).html(Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := jitter(htmlProject(t), 7*time.Second).html(Options{Golden: true, Host: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("report.html differs between two golden runs")
	}
}

// A refresh compares a re-recording with the cassette: the other side is
// the real service's, and the page says so.
func TestHTMLNamesTheRealSideOfARefresh(t *testing.T) {
	run := htmlProject(t)
	run.Command = "refresh"
	page := renderHTML(t, run)
	if !strings.Contains(page, `<h5>real service (got)</h5>`) || strings.Contains(page, "fake (got)") {
		t.Error("a refresh's report.html does not name the real service's side")
	}
}
