// Package linekind is a toy adapter kind, `line`: a service that speaks a
// line protocol over TCP (each line the client sends is answered by one
// line). It is the proof that a kind is one package plus a registration
// (kind.Registry.Register): nothing outside this package knows it.
//
// A line adapter's fake is a server at `fake.base_url: tcp://host:port`.
// A line cassette holds the lines sent as `input.stdin` (with
// `input.command` naming the client, for the reader) and the answers, one
// a line, as `output.stdout`; it is compared as a cli cassette's output.
package linekind

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// Name is the kind's name in cassette.yaml.
const Name cfgschema.Kind = "line"

// New returns the line kind, to register.
func New() kind.Kind { return lineKind{} }

type lineKind struct{}

func (lineKind) Name() cfgschema.Kind { return Name }

// CheckAdapter: the fake is a TCP server, named by a tcp:// base_url.
func (lineKind) CheckAdapter(f string, a *cfgschema.Adapter) []outcome.Problem {
	if a.Fake.InProcess {
		return nil
	}
	if u, err := url.Parse(a.Fake.BaseURL); err != nil || u.Scheme != "tcp" || u.Host == "" {
		return []outcome.Problem{{Field: f + ".fake.base_url", Message: "a line adapter's fake is a TCP server: its base_url is tcp://host:port",
			Expected: "base_url: tcp://127.0.0.1:7000"}}
	}
	return nil
}

// Compared: the answers are the contract.
func (lineKind) Compared(want, got *cassettes.Cassette) (*cassettes.Cassette, *cassettes.Cassette) {
	return want, got
}

// Incomparable: a side has no answers.
func (lineKind) Incomparable(want, got *cassettes.Cassette) *verdict.Drift {
	if want.Output != nil && got.Output != nil {
		return nil
	}
	return &verdict.Drift{Class: "output", Field: "output", Message: "no answers to compare"}
}

// Actions: one "proc" action, the lines sent as its argv and the answers
// as its stdout.
func (lineKind) Actions(c *cassettes.Cassette) []verdict.Action {
	if c.Output == nil {
		return nil
	}
	a := verdict.Action{Kind: "proc", ID: "output", Stdout: c.Output.Stdout.Bytes()}
	if c.Input != nil {
		a.Argv = lines(string(c.Input.Stdin))
	}
	return []verdict.Action{a}
}

// Calls: one per line sent, shaped by its first word.
func (lineKind) Calls(c *cassettes.Cassette) []kind.Call {
	if c.Input == nil {
		return nil
	}
	var out []kind.Call
	for _, l := range lines(string(c.Input.Stdin)) {
		verb, _, _ := strings.Cut(l, " ")
		out = append(out, kind.Call{Proc: true, Argv: []string{verb}})
	}
	return out
}

// Replay sends the recorded lines to the fake, one at a time, and reads
// one answer to each.
func (lineKind) Replay(ctx context.Context, fake kind.Fake, c *cassettes.Cassette) (*cassettes.Cassette, []verdict.Action, error) {
	if c.Input == nil {
		return nil, nil, fmt.Errorf("%s has no input: no line to send", c.Path)
	}
	u, err := url.Parse(fake.BaseURL)
	if err != nil {
		return nil, nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	sent := lines(string(c.Input.Stdin))
	r := bufio.NewReader(conn)
	var answers strings.Builder
	for _, l := range sent {
		if _, err := fmt.Fprintf(conn, "%s\n", l); err != nil {
			return nil, nil, err
		}
		a, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("no answer to %q: %w", l, err)
		}
		answers.WriteString(a)
	}
	got := *c
	got.Output = &cassettes.Output{Stdout: cassettes.Body(answers.String())}
	return &got, []verdict.Action{{Kind: "proc", ID: "output", Argv: sent, Stdout: got.Output.Stdout.Bytes()}}, nil
}

// lines splits text into its lines, without the line breaks.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
