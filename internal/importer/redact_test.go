package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// goVCRFile is a go-vcr (format 2) cassette of one interaction, as go-vcr
// writes it: request headers and body, response headers and body.
func goVCRFile(t *testing.T, path, url string, reqHeaders map[string]string, reqBody, respBody string, respHeaders map[string]string) {
	t.Helper()
	hdr := func(m map[string]string) string {
		var b strings.Builder
		for k, v := range m {
			fmt.Fprintf(&b, "            %s:\n                - %q\n", k, v)
		}
		if b.Len() == 0 {
			return "        headers: {}\n"
		}
		return "        headers:\n" + b.String()
	}
	y := "---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        proto: HTTP/1.1\n        proto_major: 1\n        proto_minor: 1\n" +
		fmt.Sprintf("        content_length: %d\n        host: h\n        body: %q\n        form: {}\n", len(reqBody), reqBody) + hdr(reqHeaders) +
		fmt.Sprintf("        url: %s\n        method: POST\n", url) +
		"      response:\n        proto: HTTP/1.1\n        proto_major: 1\n        proto_minor: 1\n" +
		fmt.Sprintf("        content_length: %d\n        uncompressed: false\n        body: %q\n", len(respBody), respBody) + hdr(respHeaders) +
		"        status: 200 OK\n        code: 200\n        duration: 1ms\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
}

// byNameSecrets are credentials known only by the name they travel under
// (#30 item 2): none is a known format, none is declared.
var byNameSecrets = map[string]string{
	"bearer": "bearer-imp-000001", "cookie": "cookie-imp-000002", "set-cookie": "setck-imp-000003",
	"form-password": "fpw-imp-000004", "json-password": "jpw-imp-000005", "client_secret": "cs-imp-000006",
	"url-password": "urlpw-imp-000007", "access_token": "at-imp-000008", "session_id": "sid-imp-000009",
}

// byNameTree writes a go-vcr tree holding every kind of byNameSecrets.
func byNameTree(t *testing.T, dir string) {
	n := byNameSecrets
	goVCRFile(t, filepath.Join(dir, "TestLogin.yaml"), "https://bob:"+n["url-password"]+"@api.example.com/login?access_token="+n["access_token"],
		map[string]string{"Authorization": "Bearer " + n["bearer"], "Cookie": "sid=" + n["cookie"], "Content-Type": "application/x-www-form-urlencoded"},
		"user=bob&password="+n["form-password"]+"&client_secret="+n["client_secret"],
		`{"ok":true,"session_id":"`+n["session_id"]+`","user":{"password":"`+n["json-password"]+`"}}`,
		map[string]string{"Set-Cookie": "session=" + n["set-cookie"] + "; HttpOnly", "Content-Type": "application/json"})
	goVCRFile(t, filepath.Join(dir, "sub", "TestEcho.yaml"), "https://api.example.com/echo", nil, "",
		"you sent "+n["bearer"]+" and "+n["json-password"], map[string]string{"Content-Type": "text/plain"})
}

// TestImportGoVCRRedactsByName: `import govcr` redacts what `import har`
// and recording redact by name — bearer tokens, Cookie and Set-Cookie,
// form and JSON passwords, client_secret, a URL password, access_token,
// session_id — with or without Redact; what it writes validates. A value
// learned in one file is not carried into another (#35: there it is
// nobody's credential), unless it is declared: then it is scrubbed there
// too.
func TestImportGoVCRRedactsByName(t *testing.T) {
	for _, withRedact := range []bool{false, true} {
		t.Run(fmt.Sprint("redact=", withRedact), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "fixtures")
			byNameTree(t, src)
			res, err := Import(Options{From: GoVCR, Source: src, Dir: filepath.Join(dir, "cassettes"), Redact: withRedact})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Saved) != 2 || len(res.Refused) != 0 {
				t.Fatalf("saved %d, refused %d", len(res.Saved), len(res.Refused))
			}
			for _, c := range res.Saved {
				data, err := os.ReadFile(c.Path)
				if err != nil {
					t.Fatal(err)
				}
				echo := strings.HasSuffix(c.Path, "TestEcho.yaml")
				for kind, v := range byNameSecrets {
					if strings.Contains(string(data), v) && !echo {
						t.Errorf("%s holds the %s value:\n%s", c.Path, kind, data)
					}
				}
				if echo && !strings.Contains(string(data), "you sent "+byNameSecrets["bearer"]+" and "+byNameSecrets["json-password"]) {
					t.Errorf("%s: a value learned in another file was carried into it:\n%s", c.Path, data)
				}
				if _, err := cassettes.Load(c.Path, cassettes.LoadOptions{}); err != nil {
					t.Errorf("%s does not validate: %v", c.Path, err)
				}
			}
		})
	}
	t.Run("declared", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "fixtures")
		byNameTree(t, src)
		declared := map[string]string{"API_TOKEN": byNameSecrets["bearer"], "USER_PASSWORD": byNameSecrets["json-password"]}
		if _, err := Import(Options{From: GoVCR, Source: src, Dir: filepath.Join(dir, "cassettes"), Credentials: declared}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "cassettes", "fixtures", "sub", "TestEcho.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "you sent [REDACTED] and [REDACTED]") {
			t.Errorf("declared values kept in another file:\n%s", data)
		}
	})
}

// realToken is a token of a known format (gitleaks' github-pat), not live.
const realToken = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"

// TestImportRefusesPerFile: without Redact, a file holding a known-format
// token is refused on its own — the others are imported, a file with
// AWS's documented example key among them — and the error lists it with
// the line in the source and a next step that imports it redacted; that
// step, run, imports every file with nothing secret on disk.
// TestImportRefusesRenamedFileAtItsSource: a refused go-vcr file whose
// name the import maps to a valid one is named by its own path, with the
// line of the key (it was named by the mapped name, a file that does not
// exist, at line 0).
func TestImportRefusesRenamedFileAtItsSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fixtures")
	wild := filepath.Join(src, "TestFoo", "it's ok (v2).yaml")
	goVCRFile(t, wild, "https://api.example.com/c", nil, "", `{"note":"token `+realToken+` here"}`, nil)
	res, err := Import(Options{From: GoVCR, Source: src, Adapter: "ex", Dir: filepath.Join(dir, "cassettes")})
	ce := asError(t, err)
	if len(res.Refused) != 1 || res.Refused[0].Source != wild || len(ce.Problems) != 1 || ce.Problems[0].File != wild || ce.Problems[0].Line == 0 {
		t.Fatalf("refused %+v, problems %+v; want %s at the key's line", res.Refused, ce.Problems, wild)
	}
}

func TestImportRefusesPerFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fixtures")
	goVCRFile(t, filepath.Join(src, "TestClean.yaml"), "https://api.example.com/a", nil, "", `{"id":1}`, nil)
	goVCRFile(t, filepath.Join(src, "TestDocs.yaml"), "https://api.example.com/b", nil, "",
		`{"AccessKeyId":"AKIAIOSFODNN7EXAMPLE","SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`, nil)
	goVCRFile(t, filepath.Join(src, "TestLeak.yaml"), "https://api.example.com/c", nil, "", `{"note":"token `+realToken+` here"}`, nil)
	out := filepath.Join(dir, "cassettes")
	res, err := Import(Options{From: GoVCR, Source: src, Adapter: "ex", Dir: out})
	ce := asError(t, err)
	if ce.Reason != outcome.ESecretLeak || len(res.Saved) != 2 || len(res.Refused) != 1 {
		t.Fatalf("err %v; saved %d, refused %d; want E_SECRET_LEAK, 2 saved, 1 refused", err, len(res.Saved), len(res.Refused))
	}
	r := res.Refused[0]
	if r.Source != filepath.Join(src, "TestLeak.yaml") || r.Path != filepath.Join(out, "ex", "TestLeak.yaml") {
		t.Errorf("refused %+v", r)
	}
	if len(ce.Problems) != 1 || ce.Problems[0].File != r.Source || ce.Problems[0].Line == 0 || !strings.Contains(ce.Problems[0].Message, "github-pat") {
		t.Errorf("problems %+v, want the source file, its line and the kind", ce.Problems)
	}
	if strings.Contains(ce.Error()+ce.NextStep+fmt.Sprint(ce.Problems), realToken) {
		t.Errorf("the error shows the token")
	}
	if _, err := os.Stat(r.Path); !os.IsNotExist(err) {
		t.Errorf("the refused cassette was written (%v)", err)
	}
	want := "cassette import govcr " + src + " --adapter ex --out " + out + " --redact --force"
	if ce.NextStep != want { // one command: no `# comment` after it
		t.Errorf("next step %q, want %q", ce.NextStep, want)
	}
	docs, _ := os.ReadFile(filepath.Join(out, "ex", "TestDocs.yaml"))
	if !strings.Contains(string(docs), "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("the documented example key was changed or refused:\n%s", docs)
	}

	// The next step, as it says.
	res, err = Import(Options{From: GoVCR, Source: src, Adapter: "ex", Dir: out, Redact: true, Force: true})
	if err != nil || len(res.Saved) != 3 {
		t.Fatalf("with Redact: %v, %d saved", err, len(res.Saved))
	}
	assertNothingSecret(t, out)
}

// assertNothingSecret scans every file under dir for a credential.
func assertNothingSecret(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, _ := os.ReadFile(p)
		if f := redact.Scan(data, nil); len(f) > 0 {
			t.Errorf("%s holds a credential: %+v", p, f)
		}
		if strings.Contains(string(data), realToken) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	return n
}

// TestImportRealGoVCRRedacted: `import govcr --redact` of every real go-vcr
// tree of ../shared/testdata imports every file, and nothing secret is on
// disk: no known format, and no value under a credential name.
func TestImportRealGoVCRRedacted(t *testing.T) {
	roots, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "testdata", "go-vcr-*"))
	if len(roots) == 0 {
		t.Skip("no ../shared/testdata")
	}
	for _, root := range roots {
		t.Run(filepath.Base(root), func(t *testing.T) {
			want, err := cassettes.LoadTree([]string{root}, cassettes.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			res, err := Import(Options{From: GoVCR, Source: root, Adapter: "real", Dir: out, Redact: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Saved) != len(want) || len(res.Refused) != 0 {
				t.Errorf("%d of %d files imported, %d refused", len(res.Saved), len(want), len(res.Refused))
			}
			assertNothingSecret(t, out)
			for _, c := range res.Saved {
				got, err := cassettes.Load(c.Path, cassettes.LoadOptions{})
				if err != nil {
					t.Fatalf("%s does not load: %v", c.Path, err)
				}
				for i, in := range got.Interactions {
					for _, h := range []map[string][]string{in.Request.Headers, in.Response.Headers} {
						for k, vs := range h {
							if redact.NewRules(nil).IsCredentialHeader(k) && vs[0] != redact.Redacted {
								t.Errorf("%s interactions[%d]: header %s kept its value", c.Path, i, k)
							}
						}
					}
				}
			}
		})
	}
}

// TestImportHARRefusalListsEachKeyOnce: two pages of one HAR refused for
// the keys in it name each place in the HAR once (each refused page listed
// every key of the file again: two pages, four problems).
func TestImportHARRefusalListsEachKeyOnce(t *testing.T) {
	dir := t.TempDir()
	src := writeHAR(t, filepath.Join(dir, "shop.har"),
		[]any{
			map[string]any{"id": "p1", "title": "One", "startedDateTime": "2026-01-02T03:04:05Z"},
			map[string]any{"id": "p2", "title": "Two", "startedDateTime": "2026-01-02T03:05:05Z"},
		},
		entry("p1", "GET", "https://shop.example/a", "text/plain", "token "+realToken),
		entry("p2", "GET", "https://shop.example/b", "text/plain", "again "+realToken))
	res, err := Import(Options{From: HAR, Source: src, Dir: filepath.Join(dir, "cassettes")})
	ce := asError(t, err)
	if len(res.Refused) != 2 || len(ce.Problems) != 2 {
		t.Fatalf("refused %d, problems %+v; want 2 refused and each key of the HAR once", len(res.Refused), ce.Problems)
	}
}
