package recording

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// connCounter is a real HTTP server that answers each request with the
// number of connections it holds open, as Prometheus's goroutineCount
// moves with them; closed receives one value per connection closed.
type connCounter struct {
	mu     sync.Mutex
	open   int
	closed chan struct{}
}

func serveCounting(t *testing.T, ln net.Listener) *connCounter {
	t.Helper()
	cc := &connCounter{closed: make(chan struct{}, 64)}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			cc.mu.Lock()
			defer cc.mu.Unlock()
			fmt.Fprintf(w, `{"clients":%d}`, cc.open)
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			cc.mu.Lock()
			defer cc.mu.Unlock()
			switch s {
			case http.StateNew:
				cc.open++
			case http.StateClosed, http.StateHijacked:
				cc.open--
				cc.closed <- struct{}{}
			}
		},
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return cc
}

// waitClosed waits until n connections were closed (the test's deadline
// bounds it).
func (cc *connCounter) waitClosed(n int) {
	for range n {
		<-cc.closed
	}
}

// TestLiveHoldsClientsUntilReleased: with HoldClients (what learn sets),
// each re-recording of an http cassette is a new client of the real side
// whose connection stays open until its Release: three re-recordings meet
// a server holding 1, 2, then 3 connections, over TCP and over a unix
// socket alike, and Release closes them. Without it (record, refresh)
// each re-recording's connection is closed when it returns.
func TestLiveHoldsClientsUntilReleased(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "sock") // a short path: a socket's is bounded (108 bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	unix, err := net.Listen("unix", filepath.Join(dir, "real.sock"))
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []struct {
		name, base string
		ln         net.Listener
	}{{"tcp", "http://" + tcp.Addr().String(), tcp}, {"unix", "unix://" + unix.Addr().String(), unix}} {
		t.Run(side.name, func(t *testing.T) {
			cc := serveCounting(t, side.ln)
			cfg, _ := liveProject(t, "version: 1\nadapters:\n  api:\n    kind: http\n    real: {base_url: '"+side.base+"'}\n    fake: {base_url: 'http://127.0.0.1:1'}\n", nil)
			old := &cassettes.Cassette{Adapter: "api", Scenario: "clients", Kind: cfgschema.KindHTTP, Path: "cassettes/api/clients.yaml",
				Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://127.0.0.1:9/clients"}, Response: cassettes.Response{Code: 200}}}}
			rerecord := func(live Live) Recording {
				t.Helper()
				rec, err := live.Rerecord(context.Background(), "api", cfg.Adapters["api"], old)
				if err != nil {
					t.Fatal(err)
				}
				return rec
			}
			held := Live{Config: cfg, Now: fixedNow, HoldClients: true}
			var releases []func()
			for i := 1; i <= 3; i++ {
				rec := rerecord(held)
				if got, want := string(rec.Cassette.Interactions[0].Response.Body), fmt.Sprintf(`{"clients":%d}`, i); got != want || rec.Release == nil {
					t.Fatalf("held re-recording %d met %s (release %v), want %s: the earlier clients must still be connected", i, got, rec.Release != nil, want)
				}
				releases = append(releases, rec.Release)
			}
			for _, release := range releases {
				release()
			}
			cc.waitClosed(3)

			for range 2 {
				rec := rerecord(Live{Config: cfg, Now: fixedNow})
				if got := string(rec.Cassette.Interactions[0].Response.Body); got != `{"clients":1}` || rec.Release != nil {
					t.Fatalf("a re-recording without HoldClients met %s (release %v), want {\"clients\":1} and nothing held", got, rec.Release != nil)
				}
				cc.waitClosed(1) // closed when Rerecord returned: nothing else closes it
			}
		})
	}
}
