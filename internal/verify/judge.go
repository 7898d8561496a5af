package verify

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// This file is verify's judgement without its running: a harness that ran
// the fake itself (an in-process fake in another language, see package
// harness) hands over what the fake produced, and the case is decided by
// the same comparison, messages and quarantine rules as a case verify ran.

// Judge decides a case from what its fake produced: got is the cassette
// with the fake's output (WithOutput) or responses (WithResponses) in place
// of the recorded ones, actions are what the fake was asked (for the
// reports). The result is the one Run gives a case whose fake answered so
// (Decide's comparison, and the cases Run decides before any fake runs: an
// undeclared adapter, an HTTP cassette that records no request): same
// status, reason, message, drifts and explanation, quarantine applied.
func Judge(c Case, got *cassettes.Cassette, actions []verdict.Action, opts Options) Result {
	res := Result{Case: c, Actions: actions}
	switch {
	case c.Adapter == nil:
		undeclared(&res, opts.Config)
	case emptyVerdict(&res):
	default:
		return Decide(c, got, actions, opts)
	}
	finish(&res, false, opts, opts.now())
	return res
}

// Errored is the result of a case whose fake could not answer at all (it
// raised, it is missing a call shape): E_FAKE_ERROR with the harness's
// message, quarantine applied.
func Errored(c Case, message string, actions []verdict.Action, opts Options) Result {
	res := Result{Case: c, Status: verdict.StatusError, Reason: outcome.EFakeError, Message: message, Actions: actions}
	finish(&res, false, opts, opts.now())
	return res
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// undeclared is the result of a case whose adapter is not in the config.
func undeclared(res *Result, cfg *cfgschema.Config) {
	res.Status, res.Reason = verdict.StatusError, outcome.ECassetteInvalid
	res.Message = fmt.Sprintf("adapter %q is not declared in %s", res.Case.Cassette.Adapter, cfg.Path)
}

// emptyVerdict decides an HTTP case whose cassette records no request
// (go-vcr's `interactions: []`): there is nothing to send a fake. It
// reports whether it decided.
func emptyVerdict(res *Result) bool {
	c := res.Case
	if c.Cassette.Kind != cfgschema.KindHTTP || len(c.Cassette.Interactions) > 0 {
		return false
	}
	if c.Adapter.Match.For(c.Cassette.Scenario).Empty == "fail" {
		res.Status, res.Reason = verdict.StatusFail, outcome.ETestFailed
		res.Message = "the cassette records no request, and adapter " + c.Cassette.Adapter + " has match.empty: fail"
		return true
	}
	res.Status, res.Message = verdict.StatusPass, "nothing to compare: the cassette records no request"
	return true
}

// WithOutput is a copy of a CLI cassette whose output is the fake's.
func WithOutput(c *cassettes.Cassette, out cassettes.Output) *cassettes.Cassette {
	got := *c
	got.Output = &out
	got.Interactions = nil // the fake's HTTP, if any, is its own business: see Compare
	return &got
}

// WithResponses is a copy of an HTTP cassette whose responses are the
// fake's, in order. Fewer responses than recorded interactions drop the
// rest (an interaction removed); more are an error.
func WithResponses(c *cassettes.Cassette, responses []cassettes.Response) (*cassettes.Cassette, error) {
	if len(responses) > len(c.Interactions) {
		return nil, fmt.Errorf("%d responses for %d recorded requests", len(responses), len(c.Interactions))
	}
	got := *c
	got.Interactions = make([]cassettes.Interaction, len(responses))
	for i, r := range responses {
		got.Interactions[i] = c.Interactions[i]
		if r.Status == "" {
			r.Status = fmt.Sprintf("%d %s", r.Code, http.StatusText(r.Code))
		}
		got.Interactions[i].Response = r
	}
	return &got, nil
}

// Outgoing is request i of an HTTP case as verify sends it to a fake that
// gave the earlier responses (the first ones, at most i): the recorded
// request with the recording's volatile values (ids, SHAs) replaced by the
// fake's own where those responses showed them (see replayHTTP), its
// target (the path and query the fake is asked) and the headers less the
// hop-by-hop ones.
func Outgoing(c Case, i int, earlier []cassettes.Response, opts Options) (in cassettes.Interaction, target string, err error) {
	ints := c.Cassette.Interactions
	if i < 0 || i >= len(ints) || len(earlier) > i {
		return in, "", fmt.Errorf("the cassette records %d requests: there is no request %d after %d responses", len(ints), i, len(earlier))
	}
	in = ints[i]
	if len(earlier) > 0 {
		p, err := pipeline(c, opts)
		if err != nil {
			return in, "", err
		}
		ids := newIdentities(p)
		for j, r := range earlier {
			ids.learn(ints[j].Response, r)
		}
		in = ids.apply(in)
	}
	u, err := url.Parse(in.Request.URL)
	if err != nil {
		return in, "", fmt.Errorf("interactions[%d].request.url %q: %w", i, in.Request.URL, err)
	}
	target = u.EscapedPath()
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	h := http.Header{}
	for k, vs := range in.Request.Headers {
		if !hopHeaders[http.CanonicalHeaderKey(k)] {
			h[k] = append([]string(nil), vs...)
		}
	}
	in.Request.Headers = h
	return in, target, nil
}

// inProcessOnly reports whether a case's fake lives only in a test
// runner's process (fake.in_process, no command, no base_url) and no
// override of opts reaches it: verify has nothing to run it against.
func inProcessOnly(c Case, opts Options) bool {
	if c.Adapter == nil || !c.Adapter.InProcessOnly() {
		return false
	}
	_, inHTTP := opts.HTTP[c.Cassette.Adapter]
	_, inCLI := opts.CLI[c.Cassette.Adapter]
	return !inHTTP && !inCLI
}

// runInProcessApart runs the cases that verify can run and skips those
// whose fake lives only in a test runner's process (they are verified
// there, through `cassette check`), keeping plan order. It reports false,
// doing nothing, when there is no such case.
func runInProcessApart(ctx context.Context, cases []Case, opts Options) (*Outcome, bool) {
	var rest []Case
	var at []int // index in cases of each of rest
	for i, c := range cases {
		if !inProcessOnly(c, opts) {
			rest, at = append(rest, c), append(at, i)
		}
	}
	if len(rest) == len(cases) {
		return nil, false
	}
	o := Run(ctx, rest, opts)
	results := make([]Result, len(cases))
	for i, c := range cases {
		results[i] = Result{Case: c, Status: verdict.StatusSkipped,
			Message: "the fake is in process (fake.in_process): its test runner verifies it through cassette check"}
	}
	for j, r := range o.Results {
		results[at[j]] = r
	}
	o.Results = results
	return o, true
}
