package recording

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/wsplay"
)

// A recorded WebSocket session is recorded again by playing its client
// side against the real service (wsplay, as verify plays it against the
// fake): the upgrade with the recorded request's headers, each recorded
// client message once the server messages recorded before it have come,
// the recorded close. What the service answers is the new session, which
// refresh compares like any re-recording. An upgrade it refuses, and a
// session it cuts or leaves without an answer, are failures of the real
// side (E_REAL_UPGRADE, E_REAL_RESET, E_TIMEOUT): never a recording.

// sessionOf is the recorded session an interaction re-records, nil for a
// plain request.
func sessionOf(in cassettes.Interaction) *cassettes.WebSocket {
	if in.Response.Code != http.StatusSwitchingProtocols || !cassettes.IsWebSocketUpgrade(in.Request.Headers) {
		return nil
	}
	if in.WebSocket == nil {
		return &cassettes.WebSocket{}
	}
	return in.WebSocket
}

// session records the session that follows the real service's answer to
// an upgrade request (key: its Sec-WebSocket-Key).
func (s *sender) session(rq request, resp *http.Response, key string, start time.Time, t Telemetry) (cassettes.Interaction, error) {
	conn, err := wsplay.Upgraded(resp, key)
	if err != nil {
		resp.Body.Close()
		why := err.Error()
		if resp.StatusCode != http.StatusSwitchingProtocols {
			why = ""
		}
		return cassettes.Interaction{}, s.failure(infra.Upgrade(resp.Status, why), t)
	}
	in := interaction(rq, resp, nil, s.opts.Meta.now().Sub(start))
	// The handshake's nonce and its answer change on every upgrade (as the
	// recording proxy, which leaves them out).
	in.Request.Headers.Del("Sec-WebSocket-Key")
	in.Response.Headers.Del("Sec-WebSocket-Accept")
	ws, err := wsplay.Play(conn, rq.session, wsplay.Options{Now: s.opts.Meta.now})
	switch {
	case errors.Is(err, wsplay.ErrLate):
		return cassettes.Interaction{}, s.failure(infra.Failure{Reason: outcome.ETimeout, Class: "the WebSocket session owed a message and sent nothing for " + wsplay.SessionWait.String()}, t)
	case err != nil:
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		f := infra.ClassifyTransport(err)
		f.Class = "the WebSocket session ended without a close frame: " + f.Class
		return cassettes.Interaction{}, s.failure(f, t)
	}
	in.WebSocket = ws
	return in, nil
}

// failure is the error of a re-recording the real side failed.
func (s *sender) failure(f infra.Failure, t Telemetry) error {
	return &outcome.Error{Reason: f.Reason, Message: fmt.Sprintf("the real service failed after %d attempt(s): %s; %s", t.Attempts, f.Class, f.Advice()), NextStep: s.again}
}
