package verify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/wsplay"
)

// A recorded WebSocket session is verified as its client: verify upgrades
// a connection to the fake with the recorded request, sends the recorded
// client messages in their order, each once the server messages recorded
// before it have come from the fake, and collects what the fake sends;
// then it plays the recorded close (awaits the fake's, or sends the
// client's and awaits the answer). The fake's messages become the
// session compared (package diff, message by message, normalized like
// bodies). A fake that sends fewer messages than recorded is waited for at
// most wsplay.SessionWait per message, then the missing ones are a drift.
// The client side is package wsplay's, which re-recording shares.

// isSession reports whether a recorded interaction is a WebSocket session.
func isSession(in cassettes.Interaction) bool {
	return in.Response.Code == http.StatusSwitchingProtocols && cassettes.IsWebSocketUpgrade(in.Request.Headers)
}

// replaySession runs interaction i, a session, against the fake at base,
// and fills out with the fake's 101 and session (or its refusal).
func replaySession(ctx context.Context, client http.Client, base string, i int, in cassettes.Interaction, out *cassettes.Interaction, ids *identities) (verdict.Action, error) {
	act := verdict.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: in.Request.Method, URL: out.Request.URL}
	u, err := url.Parse(in.Request.URL)
	if err != nil {
		return act, fmt.Errorf("interactions[%d].request.url %q: %w", i, in.Request.URL, err)
	}
	target := base + u.EscapedPath()
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, in.Request.Method, target, nil)
	if err != nil {
		return act, fmt.Errorf("interactions[%d].request: %w", i, err)
	}
	for k, vs := range in.Request.Headers {
		if !hopHeaders[http.CanonicalHeaderKey(k)] {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	key := wsplay.Handshake(req.Header)
	client.Timeout = 0 // the session is bounded by ctx (the case's timeout) and wsplay.SessionWait
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		act.Err, act.ErrKind = err.Error(), errKind(err)
		return act, fmt.Errorf("%s %s: %w", in.Request.Method, target, err)
	}
	r := &out.Response
	r.Code, r.Status, r.Headers, r.Body, r.BodyFile, r.Duration = resp.StatusCode, resp.Status, resp.Header, "", "", 0
	r.Proto, r.ProtoMajor, r.ProtoMinor, r.ContentLength = resp.Proto, resp.ProtoMajor, resp.ProtoMinor, resp.ContentLength
	out.WebSocket = nil
	act.StatusCode = resp.StatusCode
	conn, err := wsplay.Upgraded(resp, key)
	if err != nil { // a fake that does not upgrade: its answer is compared with the 101
		var body []byte
		if resp.StatusCode != http.StatusSwitchingProtocols { // a 101's body is the connection
			body, _ = io.ReadAll(io.LimitReader(resp.Body, wsplay.MaxMessage))
		}
		resp.Body.Close()
		r.Body, act.Body = cassettes.Body(body), body
		act.Duration = time.Since(start)
		return act, nil
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	out.WebSocket, _ = wsplay.Play(conn, in.WebSocket, wsplay.Options{
		// A client message quotes the fake's ids where the recording quoted
		// the service's, as a request does (learned from the messages before).
		Rewrite: func(b cassettes.Body) cassettes.Body {
			return ids.apply(cassettes.Interaction{Request: cassettes.Request{Body: b}}).Request.Body
		},
		Learn: func(rec, got cassettes.WebSocketMessage) {
			if !rec.Binary() {
				ids.learn(cassettes.Response{Body: rec.Data}, cassettes.Response{Body: got.Data})
			}
		},
	})
	act.Duration, act.Body = time.Since(start), SessionText(out.WebSocket)
	return act, nil
}

// SessionText shows a session in a report, one message a line (the http
// kind's rendering, kind.SessionText).
func SessionText(ws *cassettes.WebSocket) []byte { return kind.SessionText(ws) }
