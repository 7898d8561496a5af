package proxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"

	"golang.org/x/net/http2"

	"github.com/cassette-dev/cassette/cassettes"
)

// tunnelGet sends GET https://inner/hello through a CONNECT to target at
// the proxy p: TLS with ServerName inner, Host (or :authority) inner,
// over HTTP/2 when h2 — a client that names another host inside the
// tunnel than the one it asked for, as grpc-go with a ServerName override
// does.
func tunnelGet(t *testing.T, p *Proxy, target, inner string, h2 bool) (int, string) {
	t.Helper()
	pu, _ := url.Parse(p.URL())
	conn, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	protos := []string{"http/1.1"}
	if h2 {
		protos = []string{"h2"}
	}
	tc := tls.Client(conn, &tls.Config{ServerName: inner, RootCAs: testCA(t).CertPool(), NextProtos: protos})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("TLS with ServerName %s inside the tunnel: %v", inner, err)
	}
	req, _ := http.NewRequest("GET", "https://"+inner+"/hello", nil)
	if h2 {
		//lint:ignore SA1019 x/net's HTTP/2 client on the tunnel's conn, dialled already (net/http's NewClientConn is the newer way)
		cc, cerr := (&http2.Transport{}).NewClientConn(tc)
		if cerr != nil {
			t.Fatal(cerr)
		}
		resp, err = cc.RoundTrip(req)
	} else {
		if err := req.Write(tc); err != nil {
			t.Fatal(err)
		}
		resp, err = http.ReadResponse(bufio.NewReader(tc), req)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTunnelDialsItsTarget: a request inside a CONNECT tunnel to the
// upstream's address whose TLS ServerName and Host name another host
// (example.com, which the upstream's certificate names and which is not
// where it runs) is sent to the tunnel's target, over HTTP/1.1 and
// HTTP/2, recorded under the name the client used, and replayed with the
// upstream closed (#35: grpc-go with ServerName "localhost" was sent to
// port 443).
func TestTunnelDialsItsTarget(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprint("h2=", h2), func(t *testing.T) {
			up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "hello from the target, asked for %s", r.Host)
			}), h2)
			target := up.Listener.Addr().String()
			opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up)}
			rec := startProxy(t, opts)
			code, body := tunnelGet(t, rec, target, "example.com", h2)
			if code != 200 || body != "hello from the target, asked for example.com" {
				t.Fatalf("through the recording proxy: %d %q", code, body)
			}
			its := flushed(t, rec)
			if len(its) != 1 || its[0].Request.URL != "https://example.com/hello" {
				t.Fatalf("recorded %+v", its)
			}
			rec.Close()
			up.Close()
			opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{{Interactions: its}}
			rep := startProxy(t, opts)
			if code, got := tunnelGet(t, rep, target, "example.com", h2); code != 200 || got != body {
				t.Errorf("replay: %d %q", code, got)
			}
		})
	}
}
