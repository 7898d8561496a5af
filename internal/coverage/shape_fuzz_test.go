package coverage

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
)

// A call is built from a skeleton (what the code writes: methods, path
// words, parameter and key names, flags) and values (what the data is: ids,
// UUIDs, SHAs, tokens, dates, names, free text). Two properties hold for any
// values: the shape is the same whatever the values (it depends on the
// skeleton only), and no id, token or SHA of the call appears in it.

var fuzzCoverage = cfgschema.Coverage{
	Paths:      []string{"/repos/{owner}/{repo}"},
	Depth:      intp(2),
	ValueFlags: []string{"-C", "--repo", "-X", "-m"},
}

// values are the data of one call, derived from the fuzzer's input.
type values struct {
	id                uint64
	uuid, sha, short  string
	token, date       string
	owner, repo, text string
	flagText, posText string
	secrets           []string // the values that must never appear in a shape
}

func makeValues(id uint64, raw []byte, owner, repo, text string) values {
	h := hex.EncodeToString(append(raw, make([]byte, 20)...)[:20])
	short := h[:7+int(id%6)]
	if !strings.ContainsAny(short, "0123456789") {
		short = "1" + short[1:]
	}
	base62 := func(b []byte, n int) string {
		const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		var sb strings.Builder
		for i := range n {
			c := byte(i * 7)
			if len(b) > 0 {
				c += b[i%len(b)]
			}
			sb.WriteByte(alphabet[int(c)%len(alphabet)])
		}
		return sb.String()
	}
	tok := "ghp_" + base62(raw, 36)
	uuid := fmt.Sprintf("%s-%s-4%s-a%s-%s", h[:8], h[8:12], h[13:16], h[17:20], h[20:32])
	v := values{
		id: id, uuid: uuid, sha: h, short: short, token: tok,
		date:  fmt.Sprintf("20%02d-%02d-%02d", id%100, 1+id%12, 1+id%28),
		owner: owner, repo: repo, text: text,
		flagText: text, posText: "v" + text,
	}
	v.secrets = []string{fmt.Sprint(id), uuid, h, short, tok}
	return v
}

// httpCall builds the call of the HTTP skeleton with values v.
func httpCall(v values) (method, u, ct, body string) {
	p := fmt.Sprintf("/repos/%s/%s/issues/%d/commits/%s/%s/by/%s/at/%s/hooks/%s",
		url.PathEscape(v.owner), url.PathEscape(v.repo), v.id, v.sha, v.short, v.uuid, v.date, v.token)
	q := url.Values{"per_page": {fmt.Sprint(v.id)}, "q": {v.text}, "access_token": {v.token}, "since": {v.date}}
	b, _ := json.Marshal(map[string]any{
		"title": v.text, "number": v.id, "head_sha": v.sha,
		"labels": []any{v.text, v.owner}, "assignee": map[string]any{"login": v.owner, "id": v.id},
		"commits": []any{map[string]any{"sha": v.short, "message": v.text}},
	})
	return "POST", p + "?" + q.Encode(), "application/json", string(b)
}

// cliCall builds the argv of the CLI skeleton with values v.
func cliCall(v values) []string {
	pos := v.posText
	if pos == "v" {
		pos = "value"
	}
	return []string{"gh", "-C", v.text, "pr", "merge", fmt.Sprint(v.id), pos,
		"--repo", v.owner + "/" + v.repo, "--title=" + v.flagText, "-X" + v.flagText + "x", "--head", v.sha,
		"--token=" + v.token, "-m", v.text, "--", v.token, "-" + v.text}
}

// ghAPICall builds the argv of a gh api call with values v: the endpoint
// is part of the shape (BuiltinArgs), its values are not.
func ghAPICall(v values) []string {
	ep := fmt.Sprintf("repos/%s/%s/issues/%d/commits/%s/%s?per_page=%d&q=%s", url.PathEscape(v.owner), url.PathEscape(v.repo), v.id, v.sha, v.uuid, v.id, url.QueryEscape(v.text))
	return []string{"gh", "api", ep, "-f", "body=" + v.text, "--jq", v.flagText, "-H", "Authorization: token " + v.token}
}

func FuzzShapeHoldsNoValue(f *testing.F) {
	f.Add(uint64(1000), []byte{0xde, 0xad, 0xbe, 0xef}, "octokit-fixture-org", "hello-world", "Sesame seeds split without a pop!")
	f.Add(uint64(0), []byte{}, "", "", "")
	f.Add(uint64(12), []byte("ghp_"), "a/b", "%2F..", "-rf --x=y {} ? & =")
	f.Add(uint64(1<<63), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "grace@example.com", "2026-11-22", "log")
	r, probs := NewRules(&cfgschema.Adapter{Coverage: fuzzCoverage})
	if len(probs) > 0 {
		f.Fatal(probs)
	}
	// The reference call: the same skeleton with other values.
	ref := makeValues(4242, []byte("reference values"), "owner", "repo", "some text")
	m, u, ct, b := httpCall(ref)
	wantHTTP := r.HTTPShape(m, u, ct, []byte(b), 0)
	wantCLI := r.CLIShape(cliCall(ref), true)
	wantAPI := r.CLIShape(ghAPICall(ref), false)
	f.Fuzz(func(t *testing.T, id uint64, raw []byte, owner, repo, text string) {
		v := makeValues(id, raw, owner, repo, text)
		m, u, ct, b := httpCall(v)
		got := r.HTTPShape(m, u, ct, []byte(b), 0)
		if got != wantHTTP {
			t.Errorf("the HTTP shape depends on the values:\n got %q\nwant %q\n url %s\nbody %s", got, wantHTTP, u, b)
		}
		argv := cliCall(v)
		gotCLI := r.CLIShape(argv, true)
		if gotCLI != wantCLI {
			t.Errorf("the CLI shape depends on the values:\n got %q\nwant %q\nargv %q", gotCLI, wantCLI, argv)
		}
		gotAPI := r.CLIShape(ghAPICall(v), false)
		if gotAPI != wantAPI {
			t.Errorf("the gh api shape depends on the values:\n got %q\nwant %q\nargv %q", gotAPI, wantAPI, ghAPICall(v))
		}
		for _, s := range v.secrets {
			if len(s) >= 4 && (strings.Contains(string(got), s) || strings.Contains(string(gotCLI), s) || strings.Contains(string(gotAPI), s)) {
				t.Errorf("a value of the call, %q, is in a shape:\n%q\n%q\n%q", s, got, gotCLI, gotAPI)
			}
		}
	})
}

// TestFuzzReference pins the shapes the fuzz test compares with, so that a
// rule that dropped everything (an empty shape is the same for every call)
// cannot pass it.
func TestFuzzReference(t *testing.T) {
	r := rulesFor(t, fuzzCoverage)
	ref := makeValues(4242, []byte("reference values"), "owner", "repo", "some text")
	m, u, ct, b := httpCall(ref)
	if got, want := r.HTTPShape(m, u, ct, []byte(b), 0), Shape("POST /repos/{}/{}/issues/{}/commits/{}/{}/by/{}/at/{}/hooks/{}?access_token&per_page&q&since {assignee.id,assignee.login,commits[].message,commits[].sha,head_sha,labels,number,title}"); got != want {
		t.Errorf("HTTP reference\n got %q\nwant %q", got, want)
	}
	if got, want := r.CLIShape(cliCall(ref), true), Shape("gh pr merge --head --repo --title --token -C -X -m <stdin>"); got != want {
		t.Errorf("CLI reference\n got %q\nwant %q", got, want)
	}
	if got, want := r.CLIShape(ghAPICall(ref), false), Shape("gh api repos/{}/{}/issues/{}/commits/{}/{}?per_page&q --jq -H -f"); got != want {
		t.Errorf("gh api reference\n got %q\nwant %q", got, want)
	}
}

// FuzzShapeAnyCall feeds arbitrary calls: no rule panics, and no
// credential of a known format that the call holds reaches its shape.
func FuzzShapeAnyCall(f *testing.F) {
	f.Add("GET", "/hooks/ghp_0123456789abcdefghijklmnopqrstuvwxyz?token=x", "application/json", `{"ghp_0123456789abcdefghijklmnopqrstuvwxyz":1}`, "--ghp_0123456789abcdefghijklmnopqrstuvwxyz")
	f.Add("POST", "http://[::1]:80/%zz?%=&a[b][=1", "application/x-www-form-urlencoded", "a=%zz&b", "-")
	f.Add("", "", "", "", "")
	r, _ := NewRules(&cfgschema.Adapter{Coverage: fuzzCoverage})
	f.Fuzz(func(t *testing.T, method, u, ct, body, arg string) {
		shapes := []Shape{
			r.HTTPShape(method, u, ct, []byte(body), 0),
			r.CLIShape([]string{"tool", arg, "sub", arg, "--x=" + arg, "-" + arg}, body != ""),
			r.CLIShape([]string{"gh", "api", u, "-f", "query=" + arg, "-f" + arg}, false),
		}
		for _, s := range shapes {
			if f := redact.Scan([]byte(s), nil); len(f) > 0 {
				t.Errorf("shape %q holds a credential (%s)", s, f[0].Kind)
			}
		}
	})
}
