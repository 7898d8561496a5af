// Command server is the real side of examples/realtime: a WebSocket service
// in the shape of the LLM realtime APIs (OpenAI Realtime, Gemini Live),
// written with github.com/coder/websocket. No such API is reachable from
// where this example is tested; this server is the service recorded.
//
//	server [--listen 127.0.0.1:0] [--tls-cert FILE]
//
// With --tls-cert it serves wss:// with a certificate made for the run
// (written to FILE, for the recorder's --upstream-ca); otherwise ws://.
// It prints "listening on URL" once it accepts connections.
//
// The protocol, on GET /v1/realtime?model=M with the subprotocol
// realtime.v1 and "Authorization: Bearer KEY":
//
//   - an unknown model is refused before the upgrade (404), a missing key
//     too (401);
//   - the server greets: {"type":"session.created","session":{"id":"sess_…",
//     "model":M,"created_at":RFC 3339}};
//   - to {"type":"input.text","event_id":…,"text":T} it answers one
//     {"type":"response.delta","delta":W} per word of T, upper-cased, a
//     binary "audio" message (the bytes "PCM16", then T), and
//     {"type":"response.done","response":{"words":N}};
//   - to {"type":"session.close"} it closes the session (1000, "session
//     closed"); to anything else it answers {"type":"error",…}.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"
)

var models = map[string]bool{"realtime-mini": true, "realtime-large": true}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	certFile := flag.String("tls-cert", "", "serve wss://, writing the server's certificate to this file")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(3)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/realtime", realtime)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	scheme := "ws"
	if *certFile != "" {
		cert, err := selfSigned(*certFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			os.Exit(3)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
		scheme = "wss"
	}
	fmt.Printf("server: listening on %s://%s\n", scheme, ln.Addr())
	_ = srv.Serve(ln)
}

func realtime(w http.ResponseWriter, r *http.Request) {
	model := r.URL.Query().Get("model")
	if !models[model] {
		http.Error(w, `{"error":{"message":"model not found"}}`, http.StatusNotFound)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		http.Error(w, `{"error":{"message":"missing API key"}}`, http.StatusUnauthorized)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"realtime.v1"}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return c.Write(ctx, websocket.MessageText, b)
	}
	_ = send(map[string]any{"type": "session.created", "session": map[string]string{
		"id": "sess_" + rand.Text()[:12], "model": model, "created_at": time.Now().UTC().Format(time.RFC3339)}})
	for {
		typ, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var in struct{ Type, Text string }
		if typ != websocket.MessageText || json.Unmarshal(data, &in) != nil {
			_ = send(map[string]any{"type": "error", "error": map[string]string{"message": "events are JSON text"}})
			continue
		}
		switch in.Type {
		case "input.text":
			if answer(ctx, c, send, in.Text) != nil {
				return
			}
		case "session.close":
			_ = c.Close(websocket.StatusNormalClosure, "session closed")
			return
		default:
			_ = send(map[string]any{"type": "error", "error": map[string]string{"message": "unknown event type " + in.Type}})
		}
	}
}

func answer(ctx context.Context, c *websocket.Conn, send func(any) error, text string) error {
	words := strings.Fields(text)
	for _, w := range words {
		if err := send(map[string]string{"type": "response.delta", "delta": strings.ToUpper(w)}); err != nil {
			return err
		}
	}
	if err := c.Write(ctx, websocket.MessageBinary, append([]byte("PCM16"), text...)); err != nil {
		return err
	}
	return send(map[string]any{"type": "response.done", "response": map[string]int{"words": len(words)}})
}

// selfSigned makes a certificate for 127.0.0.1 and localhost, valid for a
// day, and writes it (not its key) to file.
func selfSigned(file string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "realtime example server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
