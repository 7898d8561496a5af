// Command client is the Go client of examples/realtime, written with
// github.com/coder/websocket: it opens a session, sends each TEXT as an
// input.text event, prints every message it receives, one a line, then
// closes the session and prints how it ended.
//
//	client URL TEXT...
//
// URL is ws:// or wss:// (…/v1/realtime?model=realtime-mini). The key is
// $REALTIME_API_KEY. A wss:// session goes through $HTTPS_PROXY when it is
// set (loopback addresses too, unlike Go's default, so that cassette's
// recording proxy sees a local server), trusting $SSL_CERT_FILE's CA as Go
// does.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client URL TEXT...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(rawURL string, texts []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &http.Transport{}
	if p := os.Getenv("HTTPS_PROXY"); p != "" && strings.HasPrefix(rawURL, "wss:") {
		pu, err := url.Parse(p)
		if err != nil {
			return err
		}
		tr.Proxy = http.ProxyURL(pu)
	}
	c, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{
		HTTPClient:   &http.Client{Transport: tr},
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + os.Getenv("REALTIME_API_KEY")}},
		Subprotocols: []string{"realtime.v1"},
	})
	if err != nil {
		if resp != nil {
			return fmt.Errorf("the server refused the session: %s", resp.Status)
		}
		return err
	}
	defer c.CloseNow()
	if err := show(ctx, c); err != nil { // session.created
		return err
	}
	for _, text := range texts {
		ev, _ := json.Marshal(map[string]string{"type": "input.text", "event_id": "evt_" + rand.Text()[:10], "text": text})
		if err := c.Write(ctx, websocket.MessageText, ev); err != nil {
			return err
		}
		for done := false; !done; {
			typ, data, err := c.Read(ctx)
			if err != nil {
				return err
			}
			printMessage(typ, data)
			done = typ == websocket.MessageText && strings.Contains(string(data), `"response.done"`)
		}
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"session.close"}`)); err != nil {
		return err
	}
	_, _, err = c.Read(ctx)
	fmt.Printf("close %d %s\n", websocket.CloseStatus(err), closeReason(err))
	return nil
}

func show(ctx context.Context, c *websocket.Conn) error {
	typ, data, err := c.Read(ctx)
	if err == nil {
		printMessage(typ, data)
	}
	return err
}

func printMessage(typ websocket.MessageType, data []byte) {
	if typ == websocket.MessageBinary {
		fmt.Printf("binary %d bytes %q\n", len(data), data)
		return
	}
	fmt.Printf("text %s\n", data)
}

func closeReason(err error) string {
	var ce websocket.CloseError
	errors.As(err, &ce)
	return ce.Reason
}
