package recording

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestRecordHTTPThroughUnixSocket: an http adapter whose real.base_url is
// unix:///path (the Docker engine's socket) is recorded through a real
// unix socket, its requests under http://localhost as the proxy records
// them; recording it again goes through the socket too. (It used to pass
// validate and then fail as "unreachable, check the network".)
func TestRecordHTTPThroughUnixSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "sock") // a short path: a socket's is bounded (108 bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		io.WriteString(w, "OK "+r.URL.Path)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	opts := HTTPOptions{Meta: Meta{Adapter: "engine"}, BaseURL: "unix://" + sock, Scenarios: []Scenario{{Name: "ping", Path: "/_ping"}}}
	recs, err := RecordHTTP(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	in := recs[0].Cassette.Interactions[0]
	if in.Request.URL != "http://localhost/_ping" || string(in.Response.Body) != "OK /_ping" || in.Response.Headers.Get("Api-Version") != "1.41" {
		t.Fatalf("recorded %s → %d %q %v", in.Request.URL, in.Response.Code, in.Response.Body, in.Response.Headers)
	}
	again, err := RerecordHTTP(context.Background(), recs[0].Cassette, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Cassette.Interactions[0].Request.URL; got != "http://localhost/_ping" {
		t.Fatalf("recorded again as %s", got)
	}
	if _, err := RecordHTTP(context.Background(), HTTPOptions{BaseURL: "unix://host/x.sock", Scenarios: opts.Scenarios}); outcome.AsError(err) == nil || outcome.AsError(err).Exit() != outcome.ExitUser {
		t.Fatalf("a unix URL with a host: err = %v, want a config error", err)
	}
}
