package kind

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// HTTP is the http kind: an adapter whose fake is a server, its cassettes
// go-vcr's interactions (a WebSocket session among them, after its 101).
func HTTP() Kind { return httpKind{} }

type httpKind struct{}

func (httpKind) Name() cfgschema.Kind { return cfgschema.KindHTTP }

// CheckAdapter: the file format's own kinds are checked by cassettes'
// loader itself (a fake needs base_url or command), so that a load
// without a registry judges them the same.
func (httpKind) CheckAdapter(string, *cfgschema.Adapter) []outcome.Problem { return nil }

// Compared: every interaction is the contract.
func (httpKind) Compared(want, got *cassettes.Cassette) (*cassettes.Cassette, *cassettes.Cassette) {
	return want, got
}

// Incomparable: the real service makes another number of interactions.
func (httpKind) Incomparable(want, got *cassettes.Cassette) *verdict.Drift {
	if len(want.Interactions) == len(got.Interactions) {
		return nil
	}
	msg := fmt.Sprintf("the real service now makes %d HTTP interactions for this scenario; the cassette has %d", len(got.Interactions), len(want.Interactions))
	return &verdict.Drift{Class: "interactions", Field: "interactions", Line: want.Line("interactions"), Message: msg}
}

func (httpKind) Actions(c *cassettes.Cassette) []verdict.Action { return sides(c) }

// Calls are one per request; a cassette that holds a command's input is
// that command's call (as a cli cassette's).
func (httpKind) Calls(c *cassettes.Cassette) []Call {
	if c.Input != nil {
		return procCall(c)
	}
	out := make([]Call, 0, len(c.Interactions))
	for _, in := range c.Interactions {
		q := in.Request
		out = append(out, Call{Method: q.Method, URL: q.URL, ContentType: q.Headers.Get("Content-Type"), Body: []byte(q.Body)})
	}
	return out
}

// sides is a compared cassette in the report's shape: one "http" action
// per interaction (ID "interactions[i]": method, URL, status, headers,
// body; a WebSocket session's messages as its body) and one "proc" action
// for a command's output (ID "output": argv, stdout, stderr, exit code).
func sides(c *cassettes.Cassette) []verdict.Action {
	var acts []verdict.Action
	for i, it := range c.Interactions {
		body := it.Response.Body.Bytes()
		if it.WebSocket != nil {
			body = SessionText(it.WebSocket)
		}
		acts = append(acts, verdict.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: it.Request.Method, URL: it.Request.URL,
			StatusCode: it.Response.Code, Headers: it.Response.Headers, Body: body})
	}
	if c.Output != nil {
		a := verdict.Action{Kind: "proc", ID: "output", Stdout: c.Output.Stdout.Bytes(), Stderr: c.Output.Stderr.Bytes(), Exit: c.Output.ExitCode}
		if c.Input != nil {
			a.Argv = append([]string{c.Input.Command}, c.Input.Args...)
		}
		acts = append(acts, a)
	}
	return acts
}

// SessionText shows a WebSocket session in a report, one message a line:
// "→" the client's, "←" the server's, a binary message by its size, and
// the close.
func SessionText(ws *cassettes.WebSocket) []byte {
	if ws == nil {
		return nil
	}
	var b strings.Builder
	for _, m := range ws.Messages {
		arrow := "←"
		if m.From == cassettes.FromClient {
			arrow = "→"
		}
		if m.Binary() {
			fmt.Fprintf(&b, "%s (binary, %d bytes)\n", arrow, len(m.Data))
		} else {
			fmt.Fprintf(&b, "%s %s\n", arrow, m.Data)
		}
	}
	if cl := ws.Close; cl != nil {
		fmt.Fprintf(&b, "close from the %s: %d %s\n", cl.From, cl.Code, cl.Reason)
	}
	return []byte(b.String())
}
