package refresh

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// What a hostile real service (or a cassette in a pull request) can put
// into a drift: a line that closes a fixed fence, mentions, issue
// references, images, links, bare URLs, raw HTML and terminal escapes.
const (
	evilMessage = "got ```\n@admin ![x](https://evil.example/p.png) [click](https://evil.example/c) <img src=https://evil.example/i.png> www.evil.example #1 org/repo#2 <script>alert(1)</script> \x1b[31mred _em_ *b* | pipe"
	evilDiff    = "-a\n+```\n+````\n+@admin hello\n+![x](https://evil.example/p.png)\n+<img src=https://evil.example/i.png>\n+\x1b]0;title\x07\n"
	evilField   = "interactions[0].response.body $.a`b|c@d"
	evilScen    = "x$(touch PWNED);y`id`|@admin"
)

// render renders Markdown as GitHub does (CommonMark with its tables,
// strikethrough, task lists and autolinks) with a real renderer.
func render(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var (
	codeRe = regexp.MustCompile(`(?s)<pre><code[^>]*>.*?</code></pre>|<code>.*?</code>`)
	tagRe  = regexp.MustCompile(`<[^>]*>`)
	// What GitHub turns into a mention, an issue link or a link in text.
	activeRe = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]|(^|[^\w/])#[0-9]|\w/\w+#[0-9]|https?://|www\.`)
)

// inert checks that the rendered HTML holds no link, image, raw HTML or
// control character, and that its text outside code makes no mention, no
// issue reference and no autolink (allowed: what the text means to hold,
// such as the owners' mention).
func inert(t *testing.T, what, md string, allowed ...string) string {
	t.Helper()
	out := render(t, md)
	checked := out
	for _, a := range allowed {
		checked = strings.ReplaceAll(checked, `<a href="`+a+`">`+a+`</a>`, "")
	}
	for _, bad := range []string{"<a ", "<img", "<script", "\x1b", "\x07"} {
		if strings.Contains(checked, bad) {
			t.Errorf("%s renders %q:\n%s", what, bad, out)
		}
	}
	text := html.UnescapeString(tagRe.ReplaceAllString(codeRe.ReplaceAllString(checked, " "), " "))
	for _, a := range allowed {
		text = strings.ReplaceAll(text, a, "")
	}
	for _, line := range strings.Split(text, "\n") {
		if m := activeRe.FindString(line); m != "" {
			t.Errorf("%s: its text would be made active on the forge (%q) in %q", what, m, line)
		}
	}
	return out
}

// TestPRBodyEscapesTheService: the drift message renders as text, the
// diff as one code block holding exactly the diff, whatever it holds; the
// escalation mentions the declared owners and no one else.
func TestPRBodyEscapesTheService(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "petstore", Scenario: evilScen}
	cr := &CaseResult{Old: old, Drifts: []verdict.Drift{{Class: "body", Field: evilField, Message: evilMessage, Diff: evilDiff}}}
	md := PRBody(PRText{Date: "2026-11-30", Adapter: "petstore", Branch: "cassette-refresh/petstore/2026-11-30", Base: "main",
		Drifting: []*CaseResult{cr}, Escalated: true, Owners: []string{"@pets-team"}, Consecutive: 3})
	out := inert(t, "the PR body", md, "@pets-team")
	blocks := regexp.MustCompile(`(?s)<pre><code class="language-diff">(.*?)</code></pre>`).FindAllStringSubmatch(out, -1)
	if len(blocks) != 1 || html.UnescapeString(blocks[0][1]) != outcome.PrintableText(evilDiff) {
		t.Errorf("the diff is not one code block holding the diff:\n%s", out)
	}
	if !strings.Contains(out, "@pets-team") {
		t.Errorf("the owners are not mentioned:\n%s", out)
	}
	if !strings.Contains(html.UnescapeString(out), "<code>"+outcome.Printable(evilField)+"</code>") {
		t.Errorf("the field is not shown as it is:\n%s", out)
	}
}

// TestIssueBodyEscapesAndQuotes: the fake-drift issue renders the fake's
// and the service's text inert, and its replay commands, run in a shell,
// pass the case ids as they are and run nothing else.
func TestIssueBodyEscapesAndQuotes(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "petstore", Scenario: evilScen}
	md := IssueBody(IssueText{Adapter: "petstore", Remote: "origin", PR: &PR{Branch: "cassette-refresh/petstore/2026-11-30", URL: "https://github.com/acme/shop/pull/7"},
		Failed: []verify.Result{{Case: verify.Case{Cassette: old}, Reason: outcome.EContractDrift, Message: evilMessage}}})
	out := inert(t, "the issue body", md, "https://github.com/acme/shop/pull/7")
	blocks := regexp.MustCompile(`(?s)<pre><code class="language-sh">(.*?)</code></pre>`).FindAllStringSubmatch(out, -1)
	if len(blocks) != 1 {
		t.Fatalf("no replay block:\n%s", out)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"git", "cassette"} { // each prints its arguments, one per line
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nprintf '%s\\n' \""+name+"\" \"$@\"\n"), 0o755)
	}
	cmd := exec.Command("sh", "-c", html.UnescapeString(blocks[0][1]))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("the replay block does not run: %v\n%s", err, blocks[0][1])
	}
	want := "git\nfetch\norigin\ncassette-refresh/petstore/2026-11-30\ngit\ncheckout\nFETCH_HEAD\ncassette\nverify\n--case\npetstore/" + evilScen + "\n"
	if string(got) != want {
		t.Errorf("the replay block ran\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("running the replay block ran a command the name held")
	}
}

// TestPRTextRendersAsWritten: a drift message with quotes, an ampersand,
// angle brackets, a mention and an issue reference renders, as CommonMark
// with GitHub's extensions, as the message itself: no entity shown as
// text (the &#34; with a zero-width space inside it that quotes once
// became), no stray character; only zero-width spaces are added.
func TestPRTextRendersAsWritten(t *testing.T) {
	msg := `body drift at $.name: "Rex" became 'Max' & <b>x</b> for @admin in #12`
	old := &cassettes.Cassette{Adapter: "petstore", Scenario: "get-pet"}
	cr := &CaseResult{Old: old, Drifts: []verdict.Drift{{Class: "body", Field: "$.name", Message: msg, Diff: "-a\n+b\n"}}}
	md := PRBody(PRText{Date: "2026-11-30", Adapter: "petstore", Branch: "cassette-refresh/petstore/2026-11-30", Base: "main", Drifting: []*CaseResult{cr}})
	out := render(t, md)
	if strings.Contains(out, "&amp;#") || strings.Contains(out, "&#\u200b") {
		t.Errorf("an entity renders as text:\n%s", out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "<code>$.name</code>") {
			line = l
		}
	}
	text := strings.ReplaceAll(html.UnescapeString(tagRe.ReplaceAllString(line, "")), "\u200b", "")
	if want := "body $.name: " + msg; text != want {
		t.Errorf("the drift line renders as\n%q, want\n%q\n(markdown:\n%s)", text, want, md)
	}
}
