package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	vcrcassette "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
)

// goVCRMatcher is what a go-vcr v4 user passes to replay a cassette that
// cassette recorded (README "Coming from go-vcr"): method, URL and body.
// go-vcr's default matcher also compares every request header as the Go
// client put it in http.Request.Header, Proto, Host, ContentLength, Form,
// TransferEncoding and Trailer; a proxy sees the wire request instead (the
// transport's User-Agent and Accept-Encoding, another client's headers,
// credentials redacted), so the default matcher cannot find it.
func goVCRMatcher(r *http.Request, i vcrcassette.Request) bool {
	if r.Method != i.Method || r.URL.String() != i.URL {
		return false
	}
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return string(body) == i.Body
}

// goVCRIgnoreHeaders are the headers a Go client's transport adds on the
// wire (so a proxy records them, but go-vcr's matcher never sees them in
// http.Request.Header) plus the credential headers cassette redacts.
var goVCRIgnoreHeaders = []string{"User-Agent", "Content-Length", "Accept-Encoding", "Authorization"}

// TestGoVCRInteropBothWays runs go-vcr v4's own recorder both ways:
//
//  1. cassette's proxy records a Go client; go-vcr's recorder replays the
//     saved file with goVCRMatcher (and, as documented, not with its
//     default matcher);
//  2. go-vcr's recorder records a Go client against a real server; the
//     server is closed, and cassette loads the file and its replay proxy
//     serves every response byte for byte.
func TestGoVCRInteropBothWays(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	dir := t.TempDir()

	t.Run("cassette records, go-vcr replays", func(t *testing.T) {
		p := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up)})
		client := forwardClient(t, p, false)
		want := map[string][]byte{}
		for _, k := range calls {
			_, b, _ := do(t, client, up.URL, k)
			want[k.method+" "+k.path] = b
		}
		path := filepath.Join(dir, "ours", "session.yaml")
		c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Adapter: "ours", Scenario: "session",
			Kind: cfgschema.KindHTTP, Interactions: flushed(t, p), Path: path}
		if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		replay := func(m vcrcassette.MatcherFunc) (ok int, errs []string) {
			rec, err := vcr.New(strings.TrimSuffix(path, ".yaml"), vcr.WithMode(vcr.ModeReplayOnly), vcr.WithSkipRequestLatency(true), vcr.WithMatcher(m))
			if err != nil {
				t.Fatalf("go-vcr refused the cassette: %v", err)
			}
			defer rec.Stop()
			hc := rec.GetDefaultClient()
			for _, k := range calls {
				req, _ := http.NewRequest(k.method, up.URL+k.path, strings.NewReader(k.body))
				if k.ctype != "" {
					req.Header.Set("Content-Type", k.ctype)
				}
				resp, err := hc.Do(req)
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Equal(b, want[k.method+" "+k.path]) {
					t.Errorf("go-vcr replayed %s %s: %q", k.method, k.path, b)
				}
				ok++
			}
			return ok, errs
		}
		if ok, errs := replay(goVCRMatcher); ok != len(calls) {
			t.Fatalf("with the documented matcher go-vcr replayed %d of %d: %v", ok, len(calls), errs)
		}
		// go-vcr's default matcher, told to ignore the headers Go's
		// transport adds on the wire (and the redacted credential), finds
		// what a Go client sent.
		if ok, errs := replay(vcrcassette.NewDefaultMatcher(vcrcassette.WithIgnoreHeaders(goVCRIgnoreHeaders...))); ok != len(calls) {
			t.Errorf("the default matcher ignoring %v replayed %d of %d: %v", goVCRIgnoreHeaders, ok, len(calls), errs)
		}
		// The README says the plain default matcher does not find them; if go-vcr
		// ever changes that, this tells us to update the README.
		if ok, _ := replay(vcrcassette.DefaultMatcher); ok != 0 {
			t.Errorf("go-vcr's default matcher replayed %d of %d: update README \"Coming from go-vcr\"", ok, len(calls))
		}
	})

	t.Run("go-vcr records, cassette replays", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(upstreamHandler))
		name := filepath.Join(dir, "govcr", "TestSomething_Sub")
		rec, err := vcr.New(name, vcr.WithMode(vcr.ModeRecordOnly), vcr.WithSkipRequestLatency(true))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{}
		for _, k := range calls {
			_, b, _ := do(t, rec.GetDefaultClient(), srv.URL, k)
			want[k.method+" "+k.path] = b
		}
		if err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
		srv.Close() // replay must not need it
		c, err := cassettes.Load(name+".yaml", cassettes.LoadOptions{})
		if err != nil {
			t.Fatalf("cassette refused go-vcr's file: %v", err)
		}
		if c.Adapter != "govcr" || c.Scenario != "TestSomething_Sub" {
			t.Errorf("names %s/%s", c.Adapter, c.Scenario)
		}
		p := startProxy(t, Options{Mode: ModeReplay, Upstream: srv.URL, Cassettes: []*cassettes.Cassette{c}})
		for _, k := range calls {
			code, b, _ := do(t, &http.Client{}, p.URL(), k)
			if code != 200 || !bytes.Equal(b, want[k.method+" "+k.path]) {
				t.Errorf("%s %s: %d %q, want %q", k.method, k.path, code, b, want[k.method+" "+k.path])
			}
		}
	})
}

// TestRecordedFormIsRedacted: the form recorded for go-vcr's matcher holds
// the query and urlencoded body, so declared secrets are scrubbed there too.
func TestRecordedFormIsRedacted(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	secret := "s3cr3t-form/value+42" // '+' decodes to ' ': the form must not hold "s3cr3t-form/value 42"
	p := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), Redact: redact.New(nil, map[string]string{"API_KEY": secret})})
	do(t, forwardClient(t, p, false), up.URL, call{"POST", "/echo?key=" + secret + "&a=1", "application/x-www-form-urlencoded", "b=2&pw=" + secret})
	its := flushed(t, p)
	if len(its) != 1 {
		t.Fatalf("%d interactions", len(its))
	}
	f := its[0].Request.Form
	if f.Get("a") != "1" || f.Get("b") != "2" || f.Get("key") != "[REDACTED]" || f.Get("pw") != "[REDACTED]" {
		t.Errorf("form = %v", f)
	}
	data, err := cassettes.Marshal(&cassettes.Cassette{Version: 2, Interactions: its})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Errorf("a spelling of the secret is recorded:\n%s", data)
	}
}

// TestReadyPath: either proxy answers verify's readiness probe itself, in
// replay mode too, without a cassette for it, and never counts it as a
// replay miss: the reverse proxy, and a forward proxy whose front door
// serves the one recorded host (or that has none).
func TestReadyPath(t *testing.T) {
	front := []*cassettes.Cassette{{Interactions: []cassettes.Interaction{it("GET", "https://api.x.test/a", "", "ok")}}}
	for name, opts := range map[string]Options{
		"reverse":                {Mode: ModeReplay, Upstream: "http://fake.invalid"},
		"forward, front door":    {Mode: ModeReplay, CA: testCA(t), Cassettes: front},
		"forward, no front door": {Mode: ModeReplay, CA: testCA(t)},
		"forward, recording":     {Mode: ModeRecord, CA: testCA(t)},
	} {
		t.Run(name, func(t *testing.T) {
			p := startProxy(t, opts)
			resp, err := http.Get(p.URL() + ReadyPath)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent || len(p.Misses()) != 0 {
				t.Errorf("status %d, %d replay miss(es); want 204 and none", resp.StatusCode, len(p.Misses()))
			}
		})
	}
}
