package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

// What the leak test (leak_test.go) plants, and the real service it plants
// it through. None of these is a live credential, none is declared in
// cassette.yaml: each must be caught by its format or by the name it
// travels under.

// planted is one credential: the text that carries it, and the secret in
// it that must not be found anywhere.
type planted struct{ text, secret string }

func plant(s string) planted { return planted{s, s} }

var (
	// Known formats (gitleaks' rules and cassette's), returned by the
	// service in its responses; the last ones are #30 item 8.
	formatKinds = map[string]planted{
		"github-pat":            plant("ghp_" + "R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aLk9"),
		"aws-access-token":      plant("AKIA" + "Q3EGT7DKXW5HNZ2L"),
		"aws-secret-access-key": {"aws_secret_access_key=" + "h7Gq2Lp9Xv4Rt8Wm1Zn6Bc3Df5Jk0Sy7Ue2Ia9Ob", "h7Gq2Lp9Xv4Rt8Wm1Zn6Bc3Df5Jk0Sy7Ue2Ia9Ob"},
		"slack-bot-token":       plant("xoxb-" + "918273645012-1029384756102-PlantedSlackT0k"),
		"slack-webhook-url":     plant("https://hooks.slack.com/services/" + "T0PLANT01/B0PLANT02/Pq7wLm2xZk4vRt8yN3bC6dF1"),
		"anthropic-key":         plant("sk-ant-" + "api03-" + "pLaNt7wLm2xZk4vRt8yN3bC6dF1hJ5sD"),
		"openai-key":            plant("sk-proj-" + "Pl4nT7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY2aE4u"),
		"gcp-api-key":           plant("AIza" + "SyPl4nt7wLm2xZk4vRt8yN3bC6dF1hJ5sD0"),
		"stripe-access-token":   plant("sk_live_" + "Pl4nt7wLm2xZk4vRt8yN3bC6"),
		"jwt":                   plant("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQtMDE"),
		"rsa-private-key":       {"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAplantedRSAkeyMaterial0001\nQWplantedRSAkeyMaterial0002==\n-----END RSA PRIVATE KEY-----\n", "plantedRSAkeyMaterial000"},
		"pgp-private-key":       {"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBplantedPGPkeyMaterial0003\n=Pl4n\n-----END PGP PRIVATE KEY BLOCK-----\n", "plantedPGPkeyMaterial0003"},
		"npm-access-token":      plant("npm_" + "Pl4nt7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY2"),
		"gitlab-pat":            plant("glpat-" + "Pl4nt7wLm2xZk4vRt8yN"),
		"ya29-token":            plant("ya29." + "a0AfPl4nt7wLm2xZk4vRt8yN3bC6dF1hJ5sD0"),
		"dsn-url-password":      {"postgres://app:" + "Pg-pl4nted-dsn-pw" + "@db.internal:5432/shop", "Pg-pl4nted-dsn-pw"},
		"dsn-keyword-password":  {"host=db user=app password=" + "Kv-pl4nted-dsn-pw" + " dbname=shop", "Kv-pl4nted-dsn-pw"},
		"token-only-userinfo":   {"https://" + "x9Kq2Lm7Xv4Rt8Wz1PlNt" + "@github.com/acme/app.git", "x9Kq2Lm7Xv4Rt8Wz1PlNt"},
	}
	// Credentials known only by their name, sent by the client (each door
	// sends them the way its clients do) and echoed back by the service.
	nameKinds = map[string]string{
		"authorization-bearer":      "bearer-planted-0001",
		"cookie":                    "cookie-planted-0002",
		"x-auth":                    "xauth-planted-0003",
		"ocp-apim-subscription-key": "ocp-planted-0004",
		"x-access-key":              "xaccess-planted-0005",
		"x-api-key":                 "xapikey-planted-0006",
		"query-pass":                "qpass-planted-0007",
		"query-pwd":                 "qpwd-planted-0008",
		"query-api_key":             "qapikey-planted-0009",
		"json-client_secret":        "jcs-planted-0010",
		"json-password":             "jpw-planted-0011",
		"json-token":                "jtok-planted-0012",
		"json-access_token":         "jat-planted-0013",
		"json-SecretAccessKey":      "Zq8Wp3Lm6Nv1Tb4Hx7Kc2Rd5Fg9Js0Ay3Ue6Io1P", // an AWS secret key under its JSON name
		"multipart-password":        "mpw-planted-0014",
		"form-client_secret":        "fcs-planted-0015",
		"basic-password":            "basic-planted-0016",
		"response-access_token":     "rat-planted-0017", // sent by the service, under its name
		"response-set-cookie":       "rsc-planted-0018",
		"json-session_id":           "sessid-planted-0019", // #30 item 8
		"json-sessionId":            "sessionid-planted-0020",
		"json-sid":                  "sid-planted-0021",
		"zipped-password":           "zpw-planted-0022", // in a request body the client compressed
	}
	// Values only the CLI doors plant: in argv and stdin (refused), in the
	// output by name, and in the environment (#30 item 7).
	cliKinds = map[string]string{
		"argv-token":       "argvtok-planted-0031",
		"argv-password":    "argvpw-planted-0032",
		"stdin-password":   "stdinpw-planted-0033",
		"stdout-password":  "outpw-planted-0034",
		"stdout-sessionId": "outsess-planted-0035",
		"stderr-secret":    "errsec-planted-0036",
		"env-token":        "envtok-planted-0037",
	}
)

// codings are the content codings every HTTP door sees a response in, as
// the service's X-Encode header takes them: labelled and layered. A body
// compressed without a Content-Encoding ("unlabelled gzip", which the
// service also serves) is an archive to cassette: never rewritten, and
// refused when it holds a credential (#35; proxy's
// TestTarballReplaysWithItsDigest, recorder's
// TestRecordHTTPDecodesCompressedBodies): it is no door's recording here.
var codings = []string{"gzip", "deflate", "br", "zstd", "gzip, br"}

// needles are the forms in which a planted value would be found: raw,
// URL- and JSON-escaped, base64. (revealed also decodes the base64 and the
// compressed blobs of what it searches.)
func needles() map[string][]string {
	out := map[string][]string{}
	add := func(kind, v string) {
		forms := []string{v, url.QueryEscape(v), base64.StdEncoding.EncodeToString([]byte(v))}
		if j, _ := json.Marshal(v); len(j) > 2 {
			forms = append(forms, string(j[1:len(j)-1]))
		}
		out[kind] = forms
	}
	for k, v := range nameKinds {
		add(k, v)
	}
	for k, v := range cliKinds {
		add(k, v)
	}
	for k, p := range formatKinds {
		add(k, p.secret)
	}
	return out
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=\s]{24,}`)

// revealed is data and what it carries encoded: every base64 run of it
// decoded, and every blob that decompresses (gzip, deflate, br, zstd),
// decompressed.
func revealed(data []byte) [][]byte {
	out := [][]byte{data}
	var blobs [][]byte
	for _, run := range base64Run.FindAll(data, -1) {
		s := strings.Join(strings.Fields(string(run)), "")
		for skip := 0; skip < 4 && skip < len(s); skip++ {
			if b, err := base64.StdEncoding.DecodeString(s[skip:]); err == nil {
				blobs = append(blobs, b)
				break
			}
			if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s[skip:], "=")); err == nil {
				blobs = append(blobs, b)
				break
			}
		}
	}
	for _, b := range append(blobs, data) {
		out = append(out, b)
		for _, c := range []string{"gzip", "deflate", "br", "zstd"} {
			if plain, err := redact.Open([]string{c}, b); err == nil && !bytes.Equal(plain, b) {
				out = append(out, plain)
			}
		}
	}
	return out
}

// found returns the kinds of planted values data holds, in any form.
func found(data []byte) []string {
	var hits []string
	views := revealed(data)
	for kind, forms := range needles() {
	next:
		for _, f := range forms {
			for _, v := range views {
				if len(f) >= 6 && bytes.Contains(v, []byte(f)) {
					hits = append(hits, kind)
					break next
				}
			}
		}
	}
	slices.Sort(hits)
	return hits
}

// leakService is the real service of the leak test: it answers with every
// known-format credential, a token, a session id and a cookie of its own,
// and echoes all it received (headers, query, body — a compressed request
// body decoded) under ordinary names, compressed as X-Encode says.
func leakService(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if cs := redact.Codings(r.Header); len(cs) > 0 {
		plain, err := redact.Open(cs, body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = plain
	}
	var hdr []string
	for k, vs := range r.Header {
		hdr = append(hdr, k+": "+strings.Join(vs, ","))
	}
	slices.Sort(hdr)
	keys := make([]string, 0, len(formatKinds))
	for _, k := range slices.Sorted(maps.Keys(formatKinds)) {
		keys = append(keys, formatKinds[k].text)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Add("Set-Cookie", "session="+nameKinds["response-set-cookie"]+"; HttpOnly")
	var out bytes.Buffer
	json.NewEncoder(&out).Encode(map[string]any{
		"path": r.URL.Path, "seen_headers": hdr, "seen_query": r.URL.RawQuery, "seen_body": string(body),
		"keys": keys, "access_token": nameKinds["response-access_token"], "token_type": "bearer",
	})
	data := out.Bytes()
	spec := r.Header.Get("X-Encode")
	spec, unlabelled := strings.CutPrefix(spec, "unlabelled ")
	if spec != "" {
		for _, c := range strings.Split(spec, ",") {
			var err error
			if data, err = redact.Encode(strings.TrimSpace(c), data); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
		}
		if !unlabelled {
			w.Header().Set("Content-Encoding", spec)
		}
	}
	w.Write(data)
}

// plantedJSON is the JSON body clients post: credentials under their names.
func plantedJSON() []byte {
	n := nameKinds
	js, _ := json.Marshal(map[string]any{"client_secret": n["json-client_secret"], "user": map[string]string{"password": n["json-password"]},
		"token": n["json-token"], "access_token": n["json-access_token"], "SecretAccessKey": n["json-SecretAccessKey"],
		"session_id": n["json-session_id"], "sessionId": n["json-sessionId"], "sid": n["json-sid"], "name": "bob"})
	return js
}

// zippedBody is a JSON body with a password, compressed with coding.
func zippedBody(t testing.TB, coding string) []byte {
	b, err := redact.Encode(coding, []byte(`{"password":"`+nameKinds["zipped-password"]+`","n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// plantedRequests are the requests every HTTP door sends, built for base:
// credentials by name in headers, query, JSON, multipart, form and Basic
// auth; a response in each of codings; a request body compressed by the
// client in gzip, br and zstd.
func plantedRequests(t *testing.T, base string) []*http.Request {
	t.Helper()
	n := nameKinds
	mk := func(method, path, ctype string, body []byte) *http.Request {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		req.Header.Set("Authorization", "Bearer "+n["authorization-bearer"])
		req.Header.Set("Cookie", "sid="+n["cookie"])
		req.Header.Set("X-Auth", n["x-auth"])
		req.Header.Set("Ocp-Apim-Subscription-Key", n["ocp-apim-subscription-key"])
		req.Header.Set("X-Access-Key", n["x-access-key"])
		req.Header.Set("X-Api-Key", n["x-api-key"])
		return req
	}
	q := "/q?page=2&pass=" + n["query-pass"] + "&pwd=" + n["query-pwd"] + "&api_key=" + n["query-api_key"]
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("user", "bob")
	mw.WriteField("password", n["multipart-password"])
	mw.Close()
	form := url.Values{"grant_type": {"client_credentials"}, "client_secret": {n["form-client_secret"]}}.Encode()
	basic := mk("GET", "/basic", "", nil)
	basic.SetBasicAuth("bob", n["basic-password"])
	reqs := []*http.Request{
		mk("GET", q, "", nil),
		mk("POST", "/json", "application/json", plantedJSON()),
		mk("POST", "/multipart", mw.FormDataContentType(), mp.Bytes()),
		mk("POST", "/form", "application/x-www-form-urlencoded", []byte(form)),
		basic,
	}
	for i, c := range codings {
		req := mk("GET", fmt.Sprintf("/enc/%d", i), "", nil)
		req.Header.Set("X-Encode", c)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd") // the client decodes nothing itself: the door sees the coding
		reqs = append(reqs, req)
	}
	for _, c := range []string{"gzip", "br", "zstd"} {
		req := mk("POST", "/zipped-"+c, "application/json", zippedBody(t, c))
		req.Header.Set("Content-Encoding", c)
		reqs = append(reqs, req)
	}
	return reqs
}

// plantedCurl is the same traffic sent by curl (--compressed: curl decodes
// what it prints): every value comes from the environment (a credential
// written in the arguments is refused); the compressed request bodies are
// files in work.
func plantedCurl(t *testing.T, base, work string) (script string, env []string) {
	n := nameKinds
	for _, k := range slices.Sorted(maps.Keys(n)) {
		env = append(env, "P_"+strings.NewReplacer("-", "_").Replace(strings.ToUpper(k))+"="+n[k])
	}
	h := `-H "Authorization: Bearer $P_AUTHORIZATION_BEARER" -H "Cookie: sid=$P_COOKIE" -H "X-Auth: $P_X_AUTH" ` +
		`-H "Ocp-Apim-Subscription-Key: $P_OCP_APIM_SUBSCRIPTION_KEY" -H "X-Access-Key: $P_X_ACCESS_KEY" -H "X-Api-Key: $P_X_API_KEY"`
	c := "curl -sS --fail --compressed " + h + " "
	jsonFile := filepath.Join(work, "planted.json")
	os.WriteFile(jsonFile, plantedJSON(), 0o600)
	lines := []string{
		c + `"` + base + `/q?page=2&pass=$P_QUERY_PASS&pwd=$P_QUERY_PWD&api_key=$P_QUERY_API_KEY"`,
		c + `-H "Content-Type: application/json" --data-binary @` + jsonFile + ` "` + base + `/json"`,
		c + `-F user=bob -F "password=$P_MULTIPART_PASSWORD" "` + base + `/multipart"`,
		c + `-d grant_type=client_credentials -d "client_secret=$P_FORM_CLIENT_SECRET" "` + base + `/form"`,
		`curl -sS --fail -u "bob:$P_BASIC_PASSWORD" "` + base + `/basic"`,
	}
	for i, cd := range codings {
		lines = append(lines, c+`-H "X-Encode: `+cd+`" "`+base+fmt.Sprintf("/enc/%d", i)+`" -o /dev/null`)
	}
	for _, cd := range []string{"gzip", "br", "zstd"} {
		f := filepath.Join(work, "zipped."+cd)
		os.WriteFile(f, zippedBody(t, cd), 0o600)
		lines = append(lines, c+`-H "Content-Type: application/json" -H "Content-Encoding: `+cd+`" --data-binary @`+f+` "`+base+`/zipped-`+cd+`"`)
	}
	return strings.Join(lines, " && echo && "), env
}

// leakProject is a project whose cassette.yaml declares no credential:
// svc (the HTTP doors and verify: the service is its own fake), tool (CLI
// recordings), and the adapters the two imports write.
func leakProject(t *testing.T, upstream string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`adapters:
  svc:
    kind: http
    real: {base_url: %[1]s}
    fake: {base_url: %[1]s}
  tool:
    kind: cli
    real: {command: [sh]}
    fake: {command: [cat]}
  impgovcr:
    kind: http
    fake: {base_url: %[1]s}
  imphar:
    kind: http
    fake: {base_url: %[1]s}
`, upstream)
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// importSources writes, in work, a go-vcr tree and a HAR that hold every
// kind the HTTP doors plant: credentials by name (request headers,
// cookies, query, form and JSON fields, a URL password, Set-Cookie and
// access_token in responses), known formats in response bodies, and
// bodies compressed in each coding (go-vcr keeps them as recorded).
func importSources(t *testing.T, work string) (govcrDir, harFile string) {
	t.Helper()
	n := nameKinds
	reqHeaders := http.Header{"Authorization": {"Bearer " + n["authorization-bearer"]}, "Cookie": {"sid=" + n["cookie"]},
		"X-Api-Key": {n["x-api-key"]}, "Content-Type": {"application/json"}}
	keys, _ := json.Marshal(map[string]any{"keys": func() []string {
		var ks []string
		for _, k := range slices.Sorted(maps.Keys(formatKinds)) {
			ks = append(ks, formatKinds[k].text)
		}
		return ks
	}()})
	respHeaders := func() http.Header {
		return http.Header{"Set-Cookie": {"session=" + n["response-set-cookie"] + "; HttpOnly"}, "Content-Type": {"application/json"}}
	}
	login := cassettes.Interaction{
		Request: cassettes.Request{Method: "POST", URL: "https://bob:" + n["basic-password"] + "@api.example.com/login?access_token=" + n["query-api_key"],
			Headers: reqHeaders, Body: cassettes.Body(plantedJSON())},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: respHeaders(),
			Body: cassettes.Body(`{"access_token":"` + n["response-access_token"] + `","session_id":"` + n["json-session_id"] + `"}`)},
	}
	form := cassettes.Interaction{
		Request: cassettes.Request{Method: "POST", URL: "https://api.example.com/token", Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			Body: cassettes.Body("grant_type=password&password=" + n["json-password"] + "&client_secret=" + n["form-client_secret"])},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: respHeaders(), Body: `{"ok":true}`},
	}
	formats := cassettes.Interaction{Request: cassettes.Request{Method: "GET", URL: "https://api.example.com/keys"},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(keys)}}
	files := map[string][]cassettes.Interaction{"TestByName": {login, form}, "sub/TestFormats": {formats}}
	for _, c := range codings {
		spec, unlabelled := strings.CutPrefix(c, "unlabelled ")
		body := keys
		for _, one := range strings.Split(spec, ",") {
			var err error
			if body, err = redact.Encode(strings.TrimSpace(one), body); err != nil {
				t.Fatal(err)
			}
		}
		h := http.Header{"Content-Type": {"application/json"}}
		if !unlabelled {
			h.Set("Content-Encoding", spec)
		}
		files["TestCompressed/"+strings.NewReplacer(", ", "-", " ", "-").Replace(c)] = []cassettes.Interaction{{
			Request:  cassettes.Request{Method: "GET", URL: "https://api.example.com/enc"},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: h, Body: cassettes.Body(body)}}}
	}
	govcrDir = filepath.Join(work, "govcr")
	var entries []any
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data, err := cassettes.Marshal(&cassettes.Cassette{Version: 2, Interactions: files[name]})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(govcrDir, filepath.FromSlash(name)+".yaml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, "TestCompressed") { // a HAR holds decoded text
			for _, in := range files[name] {
				entries = append(entries, harEntry(name, in))
			}
		}
	}
	har := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "leak-test", "version": "1"},
		"pages": []any{map[string]any{"id": "TestByName", "title": "by name", "startedDateTime": "2026-01-02T03:04:05Z"},
			map[string]any{"id": "sub/TestFormats", "title": "formats", "startedDateTime": "2026-01-02T03:05:05Z"}},
		"entries": entries}}
	data, _ := json.Marshal(har)
	harFile = filepath.Join(work, "session.har")
	if err := os.WriteFile(harFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return govcrDir, harFile
}

// harEntry is one HAR 1.2 entry of an interaction, on page.
func harEntry(page string, in cassettes.Interaction) map[string]any {
	hdrs := func(h http.Header) []any {
		var out []any
		for _, k := range slices.Sorted(maps.Keys(h)) {
			for _, v := range h[k] {
				out = append(out, map[string]any{"name": k, "value": v})
			}
		}
		return out
	}
	req := map[string]any{"method": in.Request.Method, "url": in.Request.URL, "httpVersion": "HTTP/1.1", "headers": hdrs(in.Request.Headers),
		"queryString": []any{}, "cookies": []any{}, "headersSize": -1, "bodySize": len(in.Request.Body)}
	if in.Request.Body != "" {
		req["postData"] = map[string]any{"mimeType": in.Request.Headers.Get("Content-Type"), "text": string(in.Request.Body)}
	}
	return map[string]any{
		"pageref": page, "startedDateTime": "2026-01-02T03:04:05Z", "time": 1, "request": req,
		"response": map[string]any{"status": in.Response.Code, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": hdrs(in.Response.Headers),
			"cookies": []any{}, "content": map[string]any{"size": len(in.Response.Body), "mimeType": "application/json", "text": string(in.Response.Body)},
			"redirectURL": "", "headersSize": -1, "bodySize": len(in.Response.Body)},
		"cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": 1, "receive": 0},
	}
}
