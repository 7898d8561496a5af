package proxy

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestUnixSocketUpstream records through the reverse proxy from an upstream
// that listens only on a unix socket (as a Docker engine does), stops it,
// and replays the same requests offline: the cassette names
// http://localhost, never the socket's path.
func TestUnixSocketUpstream(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"path":"`+r.URL.Path+`","query":"`+r.URL.RawQuery+`","host":"`+r.Host+`"}`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	rec := startProxy(t, Options{Mode: ModeRecord, Upstream: "unix://" + sock})
	get := func(p *Proxy, path string) (int, string) {
		t.Helper()
		resp, err := http.Get(p.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get(rec, "/v1.41/containers/json?all=1")
	if code != 200 || body != `{"path":"/v1.41/containers/json","query":"all=1","host":"localhost"}` {
		t.Fatalf("through the socket: %d %s", code, body)
	}
	its := flushed(t, rec)
	if len(its) != 1 || its[0].Request.URL != "http://localhost/v1.41/containers/json?all=1" {
		t.Fatalf("recorded %+v", its)
	}
	if strings.Contains(its[0].Request.URL+its[0].Request.Host, sock) {
		t.Errorf("the socket path is in the cassette: %+v", its[0].Request)
	}
	srv.Close()

	c := &cassettes.Cassette{Path: "cassettes/docker/ps.yaml", Adapter: "docker", Scenario: "ps", Interactions: its}
	rep := startProxy(t, Options{Mode: ModeReplay, Upstream: "unix:///nowhere/engine.sock", Cassettes: []*cassettes.Cassette{c}})
	if code, got := get(rep, "/v1.41/containers/json?all=1"); code != 200 || got != body {
		t.Errorf("replay: %d %s, want 200 %s", code, got, body)
	}
	if code, got := get(rep, "/v1.41/images/json"); code != MissStatus || !strings.Contains(got, "http://localhost/v1.41/containers/json") {
		t.Errorf("replay miss: %d %s", code, got)
	}
}

func TestUnixSocketUpstreamRejectsAHost(t *testing.T) {
	for _, up := range []string{"unix://host/run/x.sock", "unix:relative.sock", "unix://"} {
		_, err := New(Options{Mode: ModeRecord, Upstream: up})
		if err == nil || !strings.Contains(err.Error(), "unix") {
			t.Errorf("%s: %v, want an error naming unix sockets", up, err)
		}
	}
}
