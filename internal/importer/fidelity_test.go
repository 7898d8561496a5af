package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// TestImportKeepsWordsOfOtherFiles is the auth0 terraform corpus's case
// (#35): one file posts `"smtp_pass":"secret"`, another lists "secrets"
// and "client_secret_post". The password is replaced where it stood; no
// other byte of either file changes (the word was scrubbed from every file
// of the import: `"[REDACTED]s"`, `"client_[REDACTED]_post"`, 176 requests
// that no longer matched on replay).
func TestImportKeepsWordsOfOtherFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fixtures")
	const clients = `{"clients":[{"name":"web","secrets":[],"token_endpoint_auth_method":"client_secret_post","jwt_configuration":{"secret_encoded":false}}]}`
	const email = `{"name":"smtp","credentials":{"smtp_host":"smtp.example.com","smtp_user":"me","smtp_pass":"secret"},"note":"uses the client_secret_post method"}`
	goVCRFile(t, filepath.Join(src, "TestAccEmailProvider.yaml"), "https://tenant.auth0.com/api/v2/emails/provider", map[string]string{"Content-Type": "application/json"},
		email, `{"name":"smtp","enabled":true}`, map[string]string{"Content-Type": "application/json"})
	goVCRFile(t, filepath.Join(src, "TestAccClient.yaml"), "https://tenant.auth0.com/api/v2/clients?fields=secrets", map[string]string{"Content-Type": "application/json"},
		`{"name":"web","token_endpoint_auth_method":"client_secret_post"}`, clients, map[string]string{"Content-Type": "application/json"})
	res, err := Import(Options{From: GoVCR, Source: src, Adapter: "auth0", Dir: filepath.Join(dir, "cassettes")})
	if err != nil || len(res.Saved) != 2 {
		t.Fatalf("import: %v (%d saved)", err, len(res.Saved))
	}
	got := map[string]*cassettes.Cassette{}
	for _, c := range res.Saved {
		loaded, err := cassettes.Load(c.Path, cassettes.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got[c.Scenario] = loaded
	}
	if b := string(got["TestAccClient"].Interactions[0].Response.Body); b != clients {
		t.Errorf("the other file's response changed:\n got %s\nwant %s", b, clients)
	}
	if b := string(got["TestAccClient"].Interactions[0].Request.Body); b != `{"name":"web","token_endpoint_auth_method":"client_secret_post"}` {
		t.Errorf("the other file's request changed: %s", b)
	}
	want := strings.Replace(email, `"smtp_pass":"secret"`, `"smtp_pass":"[REDACTED]"`, 1)
	if b := string(got["TestAccEmailProvider"].Interactions[0].Request.Body); b != want {
		t.Errorf("the password's own file:\n got %s\nwant %s", b, want)
	}
}

// TestImportRealAuth0KeepsNonCredentialBytes imports the real go-auth0
// recordings of ../shared/testdata: every body and URL is the source's,
// byte for byte, except where a credential stood as a whole value.
func TestImportRealAuth0KeepsNonCredentialBytes(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "testdata", "go-vcr-auth0")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no ../shared/testdata")
	}
	want, err := cassettes.LoadTree([]string{root}, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orig := map[string]*cassettes.Cassette{} // by the path below root, without its extension
	for _, c := range want {
		rel, _ := filepath.Rel(root, c.Path)
		orig[strings.TrimSuffix(rel, filepath.Ext(rel))] = c
	}
	out := t.TempDir()
	res, err := Import(Options{From: GoVCR, Source: root, Adapter: "auth0", Dir: out, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	redactions := 0
	for _, c := range res.Saved {
		got, err := cassettes.Load(c.Path, cassettes.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(out, "auth0"), c.Path)
		o := orig[strings.TrimSuffix(rel, filepath.Ext(rel))]
		if o == nil || len(o.Interactions) != len(got.Interactions) {
			t.Fatalf("%s: no source of %d interactions", c.Path, len(got.Interactions))
		}
		for i := range got.Interactions {
			g, w := &got.Interactions[i], &o.Interactions[i]
			for _, pair := range [][2]string{
				{w.Request.URL, g.Request.URL}, {string(w.Request.Body), string(g.Request.Body)}, {string(w.Response.Body), string(g.Response.Body)},
			} {
				n, ok := keptButWholeValues(pair[0], pair[1])
				if !ok {
					t.Errorf("%s interactions[%d]: changed beyond whole values:\n got %s\nwant %s", c.Path, i, pair[1], pair[0])
				}
				redactions += n
			}
		}
	}
	if redactions == 0 {
		t.Errorf("nothing was redacted: the corpus posts client secrets")
	}
}

// keptButWholeValues reports whether got is orig with some whole values
// (spans bounded by non-word characters) replaced by [REDACTED] (raw or
// percent-encoded), and how many.
func keptButWholeValues(orig, got string) (int, bool) {
	got = strings.ReplaceAll(got, "%5BREDACTED%5D", redact.Redacted)
	pieces := strings.Split(got, redact.Redacted)
	if !strings.HasPrefix(orig, pieces[0]) {
		return 0, false
	}
	at := len(pieces[0])
	for j, p := range pieces[1:] {
		var k int // the length of the value replaced at orig[at:]
		switch {
		case j == len(pieces)-2:
			k = len(orig) - len(p) - at
			if k <= 0 || !strings.HasSuffix(orig, p) {
				return 0, false
			}
		case p == "": // two markers side by side: glued
			return 0, false
		default:
			if at+1 > len(orig) {
				return 0, false
			}
			if k = strings.Index(orig[at+1:], p) + 1; k <= 0 {
				return 0, false
			}
		}
		if isWord(orig, at-1) && isWord(orig, at) || isWord(orig, at+k-1) && isWord(orig, at+k) {
			return 0, false
		}
		at += k + len(p)
	}
	return len(pieces) - 1, at == len(orig)
}

func isWord(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestImportGoVCRDotDirectories: a go-vcr tree whose cassettes sit in
// dot-directories imported nothing and exited 0 (#35). It says what it
// skipped, fails (E_CASSETTE_NOT_FOUND) when nothing was imported, and
// its next step, run, imports them.
func TestImportGoVCRDotDirectories(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "testdata")
	goVCRFile(t, filepath.Join(src, ".fixtures", "TestA.yaml"), "https://api.example.com/a", nil, "", `{"id":1}`, nil)
	goVCRFile(t, filepath.Join(src, ".fixtures", "sub", "TestB.yaml"), "https://api.example.com/b", nil, "", `{"id":2}`, nil)
	out := filepath.Join(dir, "cassettes")
	res, err := Import(Options{From: GoVCR, Source: src, Adapter: "api", Dir: out})
	ce := asError(t, err)
	hidden := filepath.Join(src, ".fixtures")
	if ce.Reason != outcome.ECassetteNotFound || !strings.Contains(ce.Message, "dot-directories") || ce.NextStep != "cassette import govcr "+hidden+" --adapter api" {
		t.Fatalf("err %v (next %q), want E_CASSETTE_NOT_FOUND naming the skipped directory", err, ce.NextStep)
	}
	if res != nil && len(res.Saved) > 0 {
		t.Errorf("saved %d", len(res.Saved))
	}
	res, err = Import(Options{From: GoVCR, Source: hidden, Adapter: "api", Dir: out})
	if err != nil || len(res.Saved) != 2 {
		t.Fatalf("the next step: %v, %d saved", err, len(res.Saved))
	}

	// Beside files that import, the skipped directory is a warning.
	goVCRFile(t, filepath.Join(src, "TestC.yaml"), "https://api.example.com/c", nil, "", `{"id":3}`, nil)
	res, err = Import(Options{From: GoVCR, Source: src, Adapter: "api2", Dir: out})
	if err != nil || len(res.Saved) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "skipped "+hidden+": a dot-directory (2 go-vcr files)") {
		t.Errorf("err %v, saved %d, warnings %q", err, len(res.Saved), res.Warnings)
	}
}
