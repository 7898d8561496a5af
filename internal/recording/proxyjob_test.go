package recording

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestProxyJobWithoutTheProcess: `cassette proxy`'s pipeline is reached
// without the binary: its flags are checked before the project is loaded,
// and a replay of a cassette that is not there names the recording that
// makes it, with this run's upstream.
func TestProxyJobWithoutTheProcess(t *testing.T) {
	loaded := false
	load := func() (*workspace.Project, error) { loaded = true; return nil, nil }
	bad := &ProxyJob{Mode: "replay", Cassette: "c.yaml", MatchBody: "raw", Match: MatchFlags{Sequence: "twice"}, Load: load}
	if ce := outcome.AsError(bad.Run(context.Background())); ce.Reason != outcome.EUsage || ce.NextStep != "cassette proxy --help" || loaded {
		t.Fatalf("--sequence twice: %+v (project loaded: %v), want E_USAGE naming proxy's help before the project loads", ce, loaded)
	}
	path := filepath.Join(t.TempDir(), "s.yaml")
	j := &ProxyJob{Mode: "replay", Cassette: path, Upstream: "http://api.x.test", MatchBody: "raw", Load: load, Out: io.Discard, Log: io.Discard}
	ce := outcome.AsError(j.Run(context.Background()))
	if want := "cassette proxy --mode record --cassette " + path + " --upstream http://api.x.test"; ce.Reason != outcome.ECassetteNotFound || ce.NextStep != want || !loaded {
		t.Fatalf("replay of no cassette: %+v, want E_CASSETTE_NOT_FOUND with next step %q", ce, want)
	}
}

// TestProxyRecordFailedCallElsewhereIsANote: `cassette proxy --mode
// record` as a forward proxy, where the adapter's host answers and a call
// to another host fails (a client's update check, refused), saves the
// recording and notes the failure on its log (#35: record already did,
// the proxy refused the whole recording). A failed call to the adapter's
// own host still refuses it, nothing saved.
func TestProxyRecordFailedCallElsewhereIsANote(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // the other host: closed before the call, so the dial is refused
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := "https://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	upstreamCA := filepath.Join(dir, "upstream.pem")
	os.WriteFile(upstreamCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	ca, err := proxy.LoadOrCreateCA(filepath.Join(dir, "ca"))
	if err != nil {
		t.Fatal(err)
	}
	record := func(base string) (string, error) {
		project := t.TempDir()
		config := filepath.Join(project, cfgschema.ConfigFile)
		os.WriteFile(config, []byte("version: 1\nadapters:\n  api:\n    kind: http\n    real: {base_url: \""+base+"\"}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"), 0o600)
		out, w := io.Pipe()
		var log lockedBuffer // a tunnel's goroutine may still warn after Run returns
		j := &ProxyJob{Mode: "record", Listen: "127.0.0.1:0", Cassette: filepath.Join(project, "cassettes", "api", "items.yaml"), MatchBody: "raw",
			UpstreamCA: upstreamCA, CA: func() (*proxy.CA, error) { return ca, nil },
			Load: func() (*workspace.Project, error) { return workspace.Load(config) }, Out: w, Log: &log}
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- j.Run(ctx); w.Close() }()
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if _, url, ok := strings.Cut(lines.Text(), "listening on "); ok {
				go io.Copy(io.Discard, out)
				client := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*neturl.URL, error) { return neturl.Parse(url) },
					TLSClientConfig: &tls.Config{RootCAs: ca.CertPool()}}}
				for _, u := range []string{srv.URL + "/items", elsewhere + "/update-check"} {
					if resp, err := client.Get(u); err == nil {
						resp.Body.Close()
					}
				}
				break
			}
		}
		stop()
		err := <-done
		return log.String(), err
	}
	log, err := record(srv.URL)
	if err != nil {
		t.Fatalf("a failed call to another host refused the recording: %v\n%s", err, log)
	}
	if !strings.Contains(log, "note: GET "+elsewhere) || !strings.Contains(log, "outside adapter api") {
		t.Errorf("log = %q, want a note naming the failed call", log)
	}
	if _, err := record(elsewhere); outcome.AsError(err) == nil {
		t.Errorf("a failed call to the adapter's own host was recorded")
	}
}

// lockedBuffer is a bytes.Buffer that goroutines may write while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
