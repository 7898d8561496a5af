package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/proxy"
)

// The credentials the leak test plants, none of them declared anywhere
// (cassette.yaml lists no credentials): each must be caught by its format
// or by the name it travels under. None is a live credential.
var (
	// Known formats, returned by the service in its responses.
	formatKinds = map[string]string{
		"github-token":          "ghp_" + strings.Repeat("Lk9", 12),
		"aws-access-key-id":     "AKIA" + "Q7RT2XW9PLMN4BVC",
		"aws-secret-access-key": "aws_secret_access_key=" + "h7Gq2Lp9Xv4Rt8Wm1Zn6Bc3Df5Jk0Sy7Ue2Ia9Ob",
		"slack-token":           "xoxb-" + "918273645012-plantedslacktok",
		"slack-webhook":         "https://hooks.slack.com/services/T0PLANT01/B0PLANT02/" + "plantedwebhooksecret0042",
		"anthropic-key":         "sk-ant-" + "api03-" + strings.Repeat("pLaNt", 6),
		"openai-key":            "sk-proj-" + strings.Repeat("Pl4nT", 8),
		"google-api-key":        "AIza" + "SyPlanted" + strings.Repeat("q", 26),
		"stripe-key":            "sk_live_" + "PlantedStripe0123456789",
		"jwt":                   "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQtMDE",
		"rsa-private-key":       "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAplantedRSAkeyMaterial0001\nQWplantedRSAkeyMaterial0002==\n-----END RSA PRIVATE KEY-----\n",
		"pgp-private-key":       "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBplantedPGPkeyMaterial0003\n=Pl4n\n-----END PGP PRIVATE KEY BLOCK-----\n",
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
	}
)

// needles are the forms in which a planted value would be found: raw,
// URL- and JSON-escaped, base64; for key blocks, a line of the key body.
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
	for k, v := range formatKinds {
		switch {
		case strings.Contains(v, "PRIVATE KEY"):
			lines := strings.Split(v, "\n")
			out[k] = []string{lines[1], lines[2], lines[3]}
		case strings.HasPrefix(v, "aws_secret_access_key="):
			add(k, strings.TrimPrefix(v, "aws_secret_access_key="))
		default:
			add(k, v)
		}
	}
	return out
}

// leakService is the real service of the leak test: it answers with every
// known-format credential, a token and a cookie of its own, and echoes all
// it received (headers, query, body) under ordinary names.
func leakService(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var hdr []string
	for k, vs := range r.Header {
		hdr = append(hdr, k+": "+strings.Join(vs, ","))
	}
	sort.Strings(hdr)
	keys := make([]string, 0, len(formatKinds))
	for _, k := range sortedKeys(formatKinds) {
		keys = append(keys, formatKinds[k])
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Add("Set-Cookie", "session="+nameKinds["response-set-cookie"]+"; HttpOnly")
	json.NewEncoder(w).Encode(map[string]any{
		"path": r.URL.Path, "seen_headers": hdr, "seen_query": r.URL.RawQuery, "seen_body": string(body),
		"keys": keys, "access_token": nameKinds["response-access_token"], "token_type": "bearer",
	})
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// plantedRequests are the requests every door sends, built for base.
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
	js, _ := json.Marshal(map[string]any{"client_secret": n["json-client_secret"], "user": map[string]string{"password": n["json-password"]},
		"token": n["json-token"], "access_token": n["json-access_token"], "SecretAccessKey": n["json-SecretAccessKey"], "name": "bob"})
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("user", "bob")
	mw.WriteField("password", n["multipart-password"])
	mw.Close()
	form := url.Values{"grant_type": {"client_credentials"}, "client_secret": {n["form-client_secret"]}}.Encode()
	basic := mk("GET", "/basic", "", nil)
	basic.SetBasicAuth("bob", n["basic-password"])
	return []*http.Request{
		mk("GET", q, "", nil),
		mk("POST", "/json", "application/json", js),
		mk("POST", "/multipart", mw.FormDataContentType(), mp.Bytes()),
		mk("POST", "/form", "application/x-www-form-urlencoded", []byte(form)),
		basic,
	}
}

// plantedCurl is the same traffic sent by curl: every value comes from
// the environment (a credential written in the arguments is refused).
func plantedCurl(base string) (script string, env []string) {
	n := nameKinds
	for _, k := range sortedKeys(n) {
		env = append(env, "P_"+strings.NewReplacer("-", "_").Replace(strings.ToUpper(k))+"="+n[k])
	}
	h := `-H "Authorization: Bearer $P_AUTHORIZATION_BEARER" -H "Cookie: sid=$P_COOKIE" -H "X-Auth: $P_X_AUTH" ` +
		`-H "Ocp-Apim-Subscription-Key: $P_OCP_APIM_SUBSCRIPTION_KEY" -H "X-Access-Key: $P_X_ACCESS_KEY" -H "X-Api-Key: $P_X_API_KEY"`
	c := "curl -sS --fail " + h + " "
	script = strings.Join([]string{
		c + `"` + base + `/q?page=2&pass=$P_QUERY_PASS&pwd=$P_QUERY_PWD&api_key=$P_QUERY_API_KEY"`,
		c + `-H "Content-Type: application/json" -d "{\"client_secret\":\"$P_JSON_CLIENT_SECRET\",\"user\":{\"password\":\"$P_JSON_PASSWORD\"},\"token\":\"$P_JSON_TOKEN\",\"access_token\":\"$P_JSON_ACCESS_TOKEN\",\"SecretAccessKey\":\"$P_JSON_SECRETACCESSKEY\"}" "` + base + `/json"`,
		c + `-F user=bob -F "password=$P_MULTIPART_PASSWORD" "` + base + `/multipart"`,
		c + `-d grant_type=client_credentials -d "client_secret=$P_FORM_CLIENT_SECRET" "` + base + `/form"`,
		`curl -sS --fail -u "bob:$P_BASIC_PASSWORD" "` + base + `/basic"`,
	}, " && echo && ")
	return script, env
}

// leakProject is a project whose cassette.yaml declares no credential.
func leakProject(t *testing.T, upstream string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`adapters:
  svc:
    kind: http
    real: {base_url: %s}
    fake: {base_url: %s}
  tool:
    kind: cli
    real: {command: [sh]}
    fake: {command: [cat]}
`, upstream, upstream)
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cassetteCmd is the real binary (this test binary acting as `cassette`,
// see TestMain) with its output captured.
type cassetteCmd struct {
	cmd      *exec.Cmd
	mu       sync.Mutex
	out      bytes.Buffer
	url      chan string
	done     chan struct{}
	waitErr  error
	exitCode int
}

func (c *cassetteCmd) printed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func startCassette(t *testing.T, dir string, env []string, args ...string) *cassetteCmd {
	t.Helper()
	c := &cassetteCmd{cmd: exec.Command("cassette", args...), url: make(chan string, 1), done: make(chan struct{})}
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), env...)
	stdout, _ := c.cmd.StdoutPipe()
	stderr, _ := c.cmd.StderrPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				c.mu.Lock()
				c.out.WriteString(line + "\n")
				c.mu.Unlock()
				if _, u, ok := strings.Cut(line, "listening on "); ok {
					select {
					case c.url <- strings.TrimSpace(u):
					default:
					}
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		c.waitErr = c.cmd.Wait()
		c.exitCode = c.cmd.ProcessState.ExitCode()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

func (c *cassetteCmd) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("cassette did not exit; printed:\n%s", c.printed())
	}
	return c.exitCode
}

// TestNoLeakThroughAnyDoor plants every kind of credential, undeclared,
// through every front door — the reverse proxy, the forward proxy over
// plain HTTP and over HTTPS (HTTP/1.1 and HTTP/2), and `cassette record`
// of a command (curl) — then validates and verifies what was recorded,
// and looks for every planted value, in every encoding, in every file
// written in the project (cassettes, sidecars, reports, fake logs) and in
// everything the commands printed.
func TestNoLeakThroughAnyDoor(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (.ci/run installs it)")
	}
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(leakService))
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	plainSrv := httptest.NewServer(http.HandlerFunc(leakService))
	defer plainSrv.Close()

	// The cassette processes trust the service's test certificate (Go reads
	// SSL_CERT_FILE for its roots); the CA lives outside the project.
	work := t.TempDir()
	certFile := filepath.Join(work, "service.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}), 0o644)
	caDir := filepath.Join(work, "ca")
	ca, err := proxy.LoadOrCreateCA(caDir)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SSL_CERT_FILE=" + certFile, "CASSETTE_CA_DIR=" + caDir, "NO_COLOR=1", "HTTPS_PROXY=", "HTTP_PROXY=", "NO_PROXY="}
	project := leakProject(t, tlsSrv.URL)

	var printed []string // everything every command printed
	send := func(t *testing.T, client *http.Client, base string) {
		for _, req := range plantedRequests(t, base) {
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
			}
		}
	}
	proxyDoor := func(t *testing.T, name string, args []string, client func(proxyURL string) *http.Client, base func(proxyURL string) string) {
		c := startCassette(t, project, env, append([]string{"proxy", "--mode", "record", "--cassette", "cassettes/svc/" + name + ".yaml"}, args...)...)
		var u string
		select {
		case u = <-c.url:
		case <-c.done:
			t.Fatalf("the proxy exited:\n%s", c.printed())
		}
		send(t, client(u), base(u))
		c.cmd.Process.Signal(syscall.SIGINT)
		if code := c.wait(t); code != 0 {
			t.Fatalf("cassette proxy exited %d:\n%s", code, c.printed())
		}
		printed = append(printed, c.printed())
	}
	forward := func(h2 bool) func(string) *http.Client {
		return func(p string) *http.Client {
			pu, _ := url.Parse(p)
			tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: ca.CertPool()}, ForceAttemptHTTP2: h2}
			if !h2 {
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			return &http.Client{Transport: tr, Timeout: time.Minute}
		}
	}
	t.Run("reverse", func(t *testing.T) {
		proxyDoor(t, "reverse", []string{"--upstream", tlsSrv.URL},
			func(string) *http.Client { return &http.Client{Timeout: time.Minute} }, func(p string) string { return p })
	})
	t.Run("forward-http", func(t *testing.T) {
		proxyDoor(t, "forward-http", nil, forward(false), func(string) string { return plainSrv.URL })
	})
	t.Run("forward-https-h1", func(t *testing.T) {
		proxyDoor(t, "forward-https-h1", nil, forward(false), func(string) string { return tlsSrv.URL })
	})
	t.Run("forward-https-h2", func(t *testing.T) {
		proxyDoor(t, "forward-https-h2", nil, forward(true), func(string) string { return tlsSrv.URL })
	})
	var cliPrinted string
	t.Run("cli", func(t *testing.T) {
		script, cenv := plantedCurl(tlsSrv.URL)
		// curl trusts the cassette CA through CURL_CA_BUNDLE, set by record.
		c := startCassette(t, project, append(env, cenv...), "record", "--adapter", "tool", "--scenario", "curl", "--", "sh", "-c", script)
		if code := c.wait(t); code != 0 {
			t.Fatalf("cassette record exited %d:\n%s", code, c.printed())
		}
		cliPrinted = c.printed()
	})
	t.Run("validate-and-verify", func(t *testing.T) {
		c := startCassette(t, project, env, "validate")
		if code := c.wait(t); code != 0 {
			t.Errorf("cassette validate exited %d:\n%s", code, c.printed())
		}
		printed = append(printed, c.printed())
		// The service itself plays the fake: its answers carry every key
		// format again, which the reports must not.
		c = startCassette(t, project, env, "verify", "cassettes/svc")
		if code := c.wait(t); code != 0 && code != 1 {
			t.Errorf("cassette verify exited %d:\n%s", code, c.printed())
		}
		printed = append(printed, c.printed())
	})

	// Every file written in the project, and everything printed.
	written := map[string][]byte{}
	filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			written[p], _ = os.ReadFile(p)
		}
		return nil
	})
	var cassettesSeen int
	for p := range written {
		if strings.HasSuffix(p, ".yaml") && strings.Contains(p, "cassettes") {
			cassettesSeen++
		}
	}
	if cassettesSeen != 5 {
		t.Errorf("%d cassettes written, want one per door (5)", cassettesSeen)
	}
	found := func(where string, data string) []string {
		var hits []string
		for kind, forms := range needles() {
			for _, f := range forms {
				if len(f) >= 6 && strings.Contains(data, f) {
					hits = append(hits, kind)
					break
				}
			}
		}
		sort.Strings(hits)
		return hits
	}
	t.Run("files", func(t *testing.T) {
		for p, data := range written {
			if hits := found(p, string(data)); len(hits) > 0 {
				t.Errorf("%s holds planted credentials: %v", p, hits)
			}
		}
	})
	t.Run("printed", func(t *testing.T) {
		for _, out := range printed {
			if hits := found("output", out); len(hits) > 0 {
				t.Errorf("the commands printed planted credentials %v:\n%s", hits, out)
			}
		}
	})
	t.Run("printed-by-record-child-output", func(t *testing.T) {
		if hits := found("output", cliPrinted); len(hits) > 0 {
			t.Errorf("`cassette record` printed planted credentials %v:\n%s", hits, cliPrinted)
		}
	})
}
