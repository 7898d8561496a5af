package matching

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Miss explains why replay found no recorded response for a request. It
// is an error whose text is the whole explanation (Text), so that a door
// that can only hand back an error (a go-vcr Transport's RoundTrip) shows
// all of it; it unwraps to the miss in the project's error model (Err).
type Miss struct {
	// Request is "METHOD URL" of the request that missed (as the door
	// passed it: the proxy's is redacted).
	Request string
	// Closest names the recorded interaction that came closest among those
	// still available (not served yet, or a last response that repeats);
	// when every one was served, the closest of all (Closest.Served). Nil
	// when nothing is recorded.
	Closest *Candidate
	// Closer, when set, is a recorded interaction that came closer than
	// Closest but was served already (a sequence is served once, in order).
	Closer *Candidate
	// Used is, when the request matched but its recorded responses were all
	// served already (a non-replayable sequence), how many there were.
	Used int
	// NextStep is the command that re-records the closest cassette.
	NextStep string

	score int // of Closest, to compare misses across groups of rules
}

// Candidate is a recorded interaction and how it differs from a request.
type Candidate struct {
	File        string // cassette path ("" for a cassette built in memory)
	Line        int    // line of interactions[Index].request, 0 when unknown
	Cassette    string // adapter/scenario
	Index       int    // position in the cassette's interactions
	Request     string // "METHOD URL" as recorded
	Differences []Difference
	Served      bool // served already, not to be served again
}

// Difference is one field of a request that differs from the recorded one.
type Difference struct {
	Field    string // method, host, path, query, header Name, body
	Recorded string
	Got      string
	Diff     string // a small unified diff (body) or "- recorded\n+ got" lines
}

func (g *group) candidateFor(r ref) *Candidate {
	c := g.cs[r.c]
	it := g.interaction(r)
	return &Candidate{
		File: c.Path, Line: c.Line(fmt.Sprintf("interactions[%d].request", r.i)),
		Cassette: c.ID(), Index: r.i, Request: it.Request.Method + " " + it.Request.URL,
	}
}

func (g *group) exhausted(request string, last ref, n int) *Miss {
	// The next step records it again; the message says the other way
	// (`replayable: true`, Rules.Replayable).
	return &Miss{Request: request, Closest: g.candidateFor(last), Used: n, NextStep: g.rerecord(g.cs[last.c])}
}

// closest finds the recorded request that scores best field by field
// (Hoverfly's closest miss: an equal field 2 points, a near one 1; the
// first recorded wins a tie) from the posting lists (closest.go), among
// the interactions still available, and explains it. A recorded request
// that came closer but was served already is named too (Miss.Closer): the
// n-th request of a conversation is not explained by the one before it,
// which replay already used.
func (g *group) closest(v view, request string) *Miss {
	m := &Miss{Request: request}
	g.mu.Lock()
	// The closest of all is the closest available when it is available (an
	// available one that tied it and came first would have won): the
	// common case is one pass.
	any, anyScore := g.miss.best(&v, nil)
	best, score := any, anyScore
	if any >= 0 && g.served(int32(any)) {
		best, score = g.miss.best(&v, g.served)
	}
	g.mu.Unlock()
	switch {
	case any < 0:
		m.NextStep = g.rerecord(nil)
		return m
	case best < 0: // every one was served
		best, score = any, anyScore
	case anyScore > score:
		m.Closer = g.candidate(any, v)
	}
	m.score = score
	m.Closest = g.candidate(best, v)
	m.NextStep = g.rerecord(g.cs[g.all[best].ref.c])
	return m
}

// candidate explains the recorded request at pos against v.
func (g *group) candidate(pos int, v view) *Candidate {
	e := g.all[pos]
	c := g.candidateFor(e.ref)
	c.Differences = g.rules.differences(e.view, v)
	c.Served = g.isServed(pos)
	return c
}

func (g *group) isServed(pos int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served(int32(pos))
}

// RecordStep is the CLI's command that re-records c: the default of
// Options.Rerecord.
func RecordStep(c *cassettes.Cassette) string {
	switch {
	case c == nil:
	case c.Adapter != "" && c.Scenario != "" && cassettes.ValidNewName(c.Adapter) && cassettes.ValidNewName(c.Scenario):
		return outcome.Command("cassette", "record", "--adapter", c.Adapter, "--scenario", c.Scenario)
	case c.Path != "":
		return outcome.Command("cassette", "proxy", "--mode", "record", "--cassette", c.Path)
	}
	return outcome.Command("cassette", "proxy", "--help")
}

// Error is Text, the whole explanation, without its final newline.
func (m *Miss) Error() string { return strings.TrimSuffix(m.Text(), "\n") }

// Unwrap returns Err, so that errors.As finds the *outcome.Error.
func (m *Miss) Unwrap() error { return m.Err() }

// Err is the miss as the project's error model (reason E_REPLAY_MISS),
// with the closest interaction's file, line and differing fields as
// problems.
func (m *Miss) Err() *outcome.Error {
	e := &outcome.Error{Reason: outcome.EReplayMiss, NextStep: m.NextStep}
	switch {
	case m.Closest == nil:
		e.Message = "replay miss: no recorded interactions to serve " + m.Request
	case m.Used > 0:
		e.Message = fmt.Sprintf("replay miss: %s matched, but its %d recorded response(s) were already served and the cassette is not replayable (`replayable: true` in it, or Rules.Replayable, serves the last response again)", m.Request, m.Used)
		e.Problems = []outcome.Problem{{File: m.Closest.File, Line: m.Closest.Line,
			Field:   fmt.Sprintf("interactions[%d].request", m.Closest.Index),
			Message: "last recorded response of this sequence", Expected: fmt.Sprintf("at most %d identical request(s)", m.Used)}}
	default:
		e.Message = "replay miss: no recorded interaction matches " + m.Request
		for _, d := range m.Closest.Differences {
			e.Problems = append(e.Problems, outcome.Problem{File: m.Closest.File, Line: m.Closest.Line,
				Field:   fmt.Sprintf("interactions[%d].request.%s", m.Closest.Index, fieldPath(d.Field)),
				Message: "closest recorded request differs in " + d.Field, Expected: oneLine(d.Recorded)})
		}
	}
	return e
}

func fieldPath(f string) string {
	switch {
	case f == "method", f == "body":
		return f
	case strings.HasPrefix(f, "header "):
		return "headers." + strings.TrimPrefix(f, "header ")
	}
	return "url" // host, path, query live in the url
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// Text renders the miss for a terminal, a log and the body of the proxy's
// 599 response: the request, the closest recorded interaction (file:line),
// the fields that differ with a small diff, and the next step.
func (m *Miss) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette: replay miss: %s\n", m.Request)
	switch {
	case m.Closest == nil:
		b.WriteString("nothing is recorded: there are no interactions to serve.\n")
	case m.Used > 0:
		fmt.Fprintf(&b, "this request matched %s, but all %d recorded response(s) to it were already served\n", m.Closest.where(), m.Used)
		b.WriteString("and the cassette is not replayable (a sequence is served once, in order; `replayable: true` in it serves the last response again).\n")
	default:
		switch {
		case m.Closer != nil:
			fmt.Fprintf(&b, "closest recorded request not served yet: %s\n  %s\n", m.Closest.where(), m.Closest.Request)
		case m.Closest.Served:
			fmt.Fprintf(&b, "closest recorded request (already served, as is every one that could be): %s\n  %s\n", m.Closest.where(), m.Closest.Request)
		default:
			fmt.Fprintf(&b, "closest recorded request: %s\n  %s\n", m.Closest.where(), m.Closest.Request)
		}
		fmt.Fprintf(&b, "did not match on: [%s]\n", strings.Join(m.Closest.fields(), ", "))
		for _, d := range m.Closest.Differences {
			fmt.Fprintf(&b, "%s:\n", d.Field)
			for _, l := range strings.Split(d.Diff, "\n") {
				b.WriteString("  " + l + "\n")
			}
		}
		if m.Closer != nil {
			fmt.Fprintf(&b, "a closer one was already served (a sequence is served once, in order): %s\n  %s\n  did not match on: [%s]\n",
				m.Closer.where(), m.Closer.Request, strings.Join(m.Closer.fields(), ", "))
		}
	}
	fmt.Fprintf(&b, "next step: %s\n", m.NextStep)
	return b.String()
}

// fields names the fields that differ.
func (c *Candidate) fields() []string {
	names := make([]string, len(c.Differences))
	for i, d := range c.Differences {
		names[i] = d.Field
	}
	return names
}

func (c *Candidate) where() string {
	loc := c.File
	if loc == "" {
		loc = c.Cassette
	}
	if c.Line > 0 {
		loc += fmt.Sprintf(":%d", c.Line)
	}
	return fmt.Sprintf("%s (interactions[%d])", loc, c.Index)
}
