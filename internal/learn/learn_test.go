package learn

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// httpRec is a one-interaction recording answering body with headers.
func httpRec(url, body string, hdr map[string]string) *cassettes.Cassette {
	c := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Adapter: "svc", Scenario: "s"}
	it := cassettes.Interaction{}
	it.Request.Method, it.Request.URL = "GET", url
	it.Response.Code, it.Response.Body = 200, cassettes.Body(body)
	it.Response.Headers = map[string][]string{"Content-Type": {"application/json"}}
	for k, v := range hdr {
		it.Response.Headers[k] = []string{v}
	}
	c.Interactions = []cassettes.Interaction{it}
	return c
}

func names(ps []Proposal) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestLearnClassifiesAndKeepsConstantsLiteral(t *testing.T) {
	var recs []*cassettes.Cassette
	for i, at := range []string{"2026-11-23T15:39:32.123Z", "2026-11-23T15:40:01.9Z", "2026-11-24T08:00:00Z"} {
		id := fmt.Sprintf("6f1c%04d-aaaa-4bbb-8ccc-1234567890a%d", i, i)
		body := fmt.Sprintf(`{"id":%q,"created":%q,"built":"2026-06-04T00:58:54Z","count":%d,"items":[{"n":%d,"name":"a"},{"n":%d,"name":"b"}],"commit":"d1aa192f3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0"}`,
			id, at, 10+i, i, 2*i)
		recs = append(recs, httpRec("http://127.0.0.1:9090/v1/things?page=1&cursor=c"+fmt.Sprint(i*7+3)+"x9", body,
			map[string]string{"Date": "Mon, 23 Nov 2026 15:39:3" + fmt.Sprint(i) + " GMT", "X-Build": "constant"}))
	}
	// A project normalizer the adapter has already is kept first and built
	// with every proposal.
	keep := map[string]normalize.Definition{"svc.page": {Regex: `page=\d+`, Replace: "page=<n>"}}
	res, err := Learn([]Scenario{{Name: "s", Recordings: recs}}, Options{Adapter: "svc", Names: []string{"svc.page"}, Defs: keep})
	if err != nil {
		t.Fatal(err)
	}
	if res.Names[0] != "svc.page" {
		t.Errorf("names %v: the current normalizer is not first", res.Names)
	}
	got := names(res.Proposals)
	// The ISO built-in would also rewrite the constant "built": it gives
	// way to a normalizer aimed at "created"; the constant SHA is no
	// reason for sha:full.
	for _, want := range []string{"svc.volatile", "timestamps.RFC1123", "uuid", "svc.text"} {
		if !slices.Contains(got, want) {
			t.Errorf("proposals %v lack %s", got, want)
		}
	}
	for _, no := range []string{"timestamps.ISO8601", "sha:full"} {
		if slices.Contains(got, no) {
			t.Errorf("proposals %v hold %s, which rewrites a constant", got, no)
		}
	}
	defs := res.Defs()
	if v := defs["svc.volatile"]; !slices.Contains(v.JSONPaths, "$.created") || !slices.Contains(v.JSONPaths, "$.items[*].n") || slices.Contains(v.JSONPaths, "$.built") {
		t.Errorf("svc.volatile = %+v", v)
	}
	if len(res.Left) != 0 {
		t.Errorf("left: %+v", res.Left)
	}
	// Proved: the learned set makes the recordings equal and leaves every
	// constant as it was.
	defs["svc.page"] = keep["svc.page"]
	p, err := pipeline(res.Names, defs, normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSet(Scenario{Name: "s", Recordings: recs}, p, Options{})
	if places, left := s.compare(Options{Redact: nil}); len(places)+len(left) != 0 {
		t.Errorf("still varying under %v: %d places, %v", res.Names, len(places), left)
	}
	first := byKey(s.leaves[0])
	for k, want := range map[string]string{"interactions[0].response.body $.built": "2026-06-04T00:58:54Z",
		"interactions[0].response.body $.commit": "d1aa192f3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0", "interactions[0].response.body $.items[0].name": "a",
		"interactions[0].response.headers.X-Build[0]": "constant"} {
		if first[k].value != want {
			t.Errorf("%s = %q, want it literal: %q", k, first[k].value, want)
		}
	}
}

func TestLearnNumbersARecurringIDAndReportsOrder(t *testing.T) {
	var recs []*cassettes.Cassette
	for i := range 2 {
		b := make([]byte, 9)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		c := httpRec("http://h/create", `{"Id":"`+id+`","tags":["`+[]string{"x", "y"}[i]+`","`+[]string{"y", "x"}[i]+`"]}`, nil)
		next := httpRec("http://h/things/"+id+"/json", `{"State":"running"}`, nil)
		c.Interactions = append(c.Interactions, next.Interactions[0])
		recs = append(recs, c)
	}
	res, err := Learn([]Scenario{{Name: "s", Recordings: recs}}, Options{Adapter: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.Defs()["svc.token"]; !ok || d.Regex != `\b(?:[0-9a-f]{18})\b` || d.Replace != "" {
		t.Errorf("want the recurring id numbered by svc.token; proposals %v, defs %+v", names(res.Proposals), res.Defs())
	}
	// Identity kept: the id the first response returned is the one the
	// second request's URL holds, under the same number.
	p, err := pipeline(res.Names, res.Defs(), normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range recs {
		s := newSet(Scenario{Name: "s", Recordings: []*cassettes.Cassette{c}}, p, Options{})
		m := byKey(s.leaves[0])
		if m["interactions[0].response.body $.Id"].value != "<svc.token:1>" || m["interactions[1].request.url"].value != "/things/<svc.token:1>/json" {
			t.Errorf("identity lost: %q, %q", m["interactions[0].response.body $.Id"].value, m["interactions[1].request.url"].value)
		}
	}
	if !slices.ContainsFunc(res.Left, func(u Unexpressed) bool {
		return strings.Contains(u.What, "order") && strings.Contains(u.Where, "$.tags[*]")
	}) {
		t.Errorf("the reordered list is not reported: %+v", res.Left)
	}
}

func TestSamplesAreRedacted(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2", 9)
	recs := []*cassettes.Cassette{httpRec("http://h/", `{"t":"`+secret+`-1"}`, nil), httpRec("http://h/", `{"t":"`+secret+`-2"}`, nil)}
	res, err := Learn([]Scenario{{Name: "s", Recordings: recs}}, Options{Adapter: "svc", Normalize: normalize.Options{Credentials: map[string]string{"TOKEN": secret}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Places {
		for _, s := range p.Samples {
			if strings.Contains(s, secret) {
				t.Fatalf("a sample shows the credential: %q", s)
			}
		}
	}
}

// TestLearnOnRealGit records real git twice, in two repositories made
// with the same content at two different times: the SHAs and dates vary,
// the author and the messages do not.
func TestLearnOnRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var logs, heads, tops, branches []*cassettes.Cassette
	for i, date := range []string{"2026-11-03T10:00:00+0100", "2026-11-22T14:11:09+0000"} {
		dir := filepath.Join(t.TempDir(), "repo")
		git := func(args ...string) string {
			cmd := exec.Command("git", append([]string{"-c", "user.name=Ada Lovelace", "-c", "user.email=ada@example.com", "-c", "commit.gpgsign=false"}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		git("init", "-q", "-b", "main")
		for _, msg := range []string{"Initial commit", "Add the greet program"} {
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(msg), 0o644); err != nil {
				t.Fatal(err)
			}
			git("add", "f")
			git("commit", "-q", "-m", msg)
		}
		cli := func(out string) *cassettes.Cassette {
			return &cassettes.Cassette{Kind: cfgschema.KindCLI, Scenario: fmt.Sprint(i), Input: &cassettes.Input{Command: "git"},
				Output: &cassettes.Output{Stdout: cassettes.Body(out)}}
		}
		logs = append(logs, cli(git("log", "-n", "1")))
		heads = append(heads, cli(git("rev-parse", "HEAD")))
		tops = append(tops, cli(git("rev-parse", "--show-toplevel")))
		branches = append(branches, cli(git("branch", "--show-current")))
	}
	res, err := Learn([]Scenario{{Name: "log", Recordings: logs}, {Name: "rev-parse", Recordings: heads}}, Options{Adapter: "git"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(res.Proposals); !slices.Equal(got, []string{"timestamps.ANSIC", "sha:full"}) && !slices.Equal(got, []string{"sha:full", "timestamps.ANSIC"}) {
		t.Errorf("proposals %v, want sha:full and timestamps.ANSIC; places %+v left %+v", got, res.Places, res.Left)
	}
	// The top-level path is a line of its own: the expression learned for
	// it leaves the branch's constant "main" alone.
	res, err = Learn([]Scenario{{Name: "toplevel", Recordings: tops}, {Name: "branch", Recordings: branches}}, Options{Adapter: "git"})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Defs()["git.text"]; d.Regex == "" || len(res.Warnings) != 0 || len(res.Left) != 0 {
		t.Errorf("want git.text for the path alone; got %v, %+v, warnings %v, left %+v", names(res.Proposals), d, res.Warnings, res.Left)
	}
}

// TestWhatNoNormalizerExpressesIsReported: a field present in one
// recording only, and an output whose line count changes, are reported
// with what to do; nothing is proposed for them.
func TestWhatNoNormalizerExpressesIsReported(t *testing.T) {
	recs := []*cassettes.Cassette{httpRec("http://h/", `{"a":1,"warning":"slow"}`, nil), httpRec("http://h/", `{"a":1}`, nil)}
	cli := func(out string) *cassettes.Cassette {
		return &cassettes.Cassette{Kind: cfgschema.KindCLI, Input: &cassettes.Input{Command: "x"}, Output: &cassettes.Output{Stdout: cassettes.Body(out)}}
	}
	res, err := Learn([]Scenario{{Name: "s", Recordings: recs}, {Name: "c", Recordings: []*cassettes.Cassette{cli("a\nb\n"), cli("a\n")}}}, Options{Adapter: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range res.Left {
		got = append(got, u.Scenario+" "+u.Where+": "+u.What+" / "+u.Advice)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{"s interactions[0].response.body $.warning: present in some recordings only / a value that is sometimes absent: set `compare: modelled`",
		"c output.stdout lines: differs between recordings (3 vs 2) / the number of lines changes"} {
		if !strings.Contains(joined, want) {
			t.Errorf("left lacks %q:\n%s", want, joined)
		}
	}
	if len(res.Proposals) != 0 {
		t.Errorf("proposals %v for what no normalizer expresses", names(res.Proposals))
	}
}

// TestLearnOnAStream: an SSE body is compared record by record; the
// message id each stream starts with is found by its JSON path, and the
// text of the events stays literal.
func TestLearnOnAStream(t *testing.T) {
	var recs []*cassettes.Cassette
	for _, id := range []string{"msg_01XFDUDYJgAACzvnptvVoYEL", "msg_013Zva2CMHLNnXjNJJKqJ2EF"} {
		body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"" + id + "\",\"role\":\"assistant\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Olá!\"}}\n\n"
		c := httpRec("http://h/v1/messages", body, nil)
		c.Interactions[0].Response.Headers["Content-Type"] = []string{"text/event-stream"}
		recs = append(recs, c)
	}
	res, err := Learn([]Scenario{{Name: "stream", Recordings: recs}}, Options{Adapter: "llm"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Defs()["llm.volatile"]
	if !slices.Equal(d.JSONPaths, []string{"$.message.id"}) || len(res.Left) != 0 {
		t.Errorf("want $.message.id under llm.volatile; proposals %v, defs %+v, left %+v", names(res.Proposals), res.Defs(), res.Left)
	}
	if len(res.Places) != 1 || !strings.Contains(res.Places[0].Where, "record") || res.Places[0].Classes[0] != "prefixed-id" {
		t.Errorf("places %+v", res.Places)
	}
}
