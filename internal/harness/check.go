package harness

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// Checker judges what a harness's fakes produced, line by line.
type Checker struct {
	Cases   []verify.Case  // the planned cases a line may name
	Options verify.Options // the project's, as verify would use them
	Now     func() time.Time

	byID   map[string][]int // case id → indexes into Cases
	byFile map[string]int   // ShardKey → index
	files  []string         // per case, its ShardKey
	red    *redact.Redactor // what every answer goes through (Write)
	buf    bytes.Buffer     // Write's, for each answer in turn
	pass   []byte           // Write's, for each pass of the usual shape
	lines  lineDecoder      // line's, for each input line in turn
}

// MaxLine is the longest input line Check reads: a line past it is
// answered with a problem naming it and is not read (a 150 MB line grew
// the process to 2 GB). No recorded output is that long: a cassette is at
// most cassettes.MaxFileBytes.
const MaxLine = cassettes.MaxFileBytes

// Checked is what a run of Check leaves for the reports: the outcome of the
// checked cases in plan order, and how many lines were refused.
type Checked struct {
	Outcome  *verify.Outcome
	Replay   []string // per result, the harness's command that runs it again ("" when not given)
	Tests    []string // per result, the runner's test item that drove it ("" when not given)
	Problems int
	First    *Problem // the first line refused
}

// Check reads JSON lines from r until it is closed and writes one answer
// line to w for each (Result, NextRequest or Problem). Answers are flushed
// whenever r has nothing more buffered, so a harness may wait for each
// answer or write a whole batch first. The error is for w or r failing,
// never for a line (that is a Problem answer).
//
// The lines are judged with one P, each as it comes: with a P per core
// the idle ones spin looking for work between a harness's lines (a third
// of a co-process's CPU under drive.py); the load before Check and the
// reports after it have them all again.
func (k *Checker) Check(r io.Reader, w io.Writer) (*Checked, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	now := k.Now
	if now == nil {
		now = time.Now
	}
	k.index()
	in := bufio.NewReaderSize(r, 1<<16)
	out := bufio.NewWriterSize(w, 1<<16)
	results := map[checkKey]checked{}
	var order []checkKey // first seen, within a case
	done := &Checked{Outcome: &verify.Outcome{Started: now(), FakeLogs: map[string]string{}}}
	for n := 1; ; n++ {
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return done, err
			}
		}
		data, long, err := readLine(in, MaxLine)
		if len(bytes.TrimSpace(data)) > 0 || long {
			answer, i, res, l := any(nil), -1, verify.Result{}, Line{}
			if long {
				answer = k.problem(n, "", fmt.Sprintf("the line is longer than %d MiB, the most a line may hold (a cassette is at most that long, so no recorded output is longer); it was not read", MaxLine>>20))
			} else {
				answer, i, res, l = k.line(n, data, now)
			}
			if i >= 0 {
				key := checkKey{i, l.Test}
				if _, again := results[key]; !again {
					order = append(order, key)
				}
				results[key] = checked{res, l.Replay} // the last answer of a test stands
			}
			// A listing that could not be made (an undeclared adapter)
			// judged nothing: answered, not a refused line of the run.
			if p, bad := answer.(Problem); bad && l.Type != "cases" {
				if done.Problems++; done.First == nil {
					done.First = &p
				}
			}
			if err := k.Write(out, answer); err != nil {
				return done, err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return done, err
		}
	}
	slices.SortStableFunc(order, func(a, b checkKey) int { return cmp.Compare(a.i, b.i) }) // plan order
	for _, key := range order {
		done.Outcome.Results = append(done.Outcome.Results, results[key].res)
		done.Replay = append(done.Replay, results[key].replay)
		done.Tests = append(done.Tests, key.test)
	}
	done.Outcome.Finished = now()
	return done, out.Flush()
}

// checkKey is one result of a check: a case and the test that drove it.
type checkKey struct {
	i    int
	test string
}

type checked struct {
	res    verify.Result
	replay string
}

// readLine reads the next line of in, up to and with its newline; one
// longer than max is read to its end and dropped (long is true).
func readLine(in *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !long && len(line)+len(chunk) > max {
			long, line = true, nil
		}
		if !long {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

// Write writes v as one JSON line to w, through the project's redaction
// (its credential names, the declared values, the known key formats): a
// fake's output or error quoted in a message or a drift (a binding's
// {"error": "…ghp_…"}) never reaches the harness, which prints it as the
// test's failure, holding a credential. Every answer of Check goes
// through it, and so should anything else said to the harness (the
// summary). It encodes into a buffer of the Checker's: one Write at a
// time, as Check and then the summary's.
//
// A pass of the usual shape is written by hand (appendPass) and, when its
// id and file hold no keyword of a known format, redacted of the values
// only: its other bytes hold none (TestPassTemplateHoldsNoKeyword), so
// the formats' scan would find nothing (FuzzWriteAgreesWithEncoding). A
// listing is written by hand too (appendListing), and redacted whole.
func (k *Checker) Write(w io.Writer, v any) error {
	if k.red == nil {
		k.red = redact.New(k.Options.Config.Redaction(), k.Options.Credentials)
	}
	if r, ok := v.(Result); ok {
		var plain bool
		if k.pass, plain = appendPass(k.pass[:0], &r); plain && !redact.HoldsKeyword(r.ID) && !redact.HoldsKeyword(r.File) {
			_, err := w.Write(k.red.ValueBytes(k.pass))
			return err
		}
	}
	if l, ok := v.(*Listing); ok {
		var scratch bytes.Buffer
		_, err := w.Write(k.red.Bytes(appendListing(nil, l, &scratch))) // not kept for the lines after it
		return err
	}
	k.buf.Reset()
	enc := json.NewEncoder(&k.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(k.red.Bytes(k.buf.Bytes()))
	if k.buf.Cap() > 1<<20 {
		k.buf = bytes.Buffer{} // a long answer's: not kept for the lines after it
	}
	return err
}

// line takes one input line. It returns the answer and, for a check, the
// index of the case, its result and the line (i is -1 otherwise).
func (k *Checker) line(n int, data []byte, now func() time.Time) (answer any, i int, res verify.Result, l Line) {
	end, ok := k.lines.decode(data, &l)
	if !ok { // not the usual shape: encoding/json's to decode or refuse
		l = Line{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return k.problem(n, l.ID, "the line is not a check line: "+err.Error()), -1, res, l
		}
		end = int(dec.InputOffset())
	}
	// What follows the value, as dec.More would see it, without its
	// second read (a new 1.5 KiB buffer for every line).
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 && rest[0] != ']' && rest[0] != '}' {
		return k.problem(n, l.ID, "more than one JSON value on the line: write one line per case"), -1, res, l
	}
	if l.Protocol > Version {
		return k.problem(n, l.ID, fmt.Sprintf("the line speaks protocol %d; this cassette speaks protocol %d (upgrade cassette)", l.Protocol, Version)), -1, res, l
	}
	if l.Type == "cases" {
		ls, err := k.listing(l.Adapter, now())
		if err != nil {
			return k.problem(n, "", err.Error()), -1, res, l
		}
		return ls, -1, res, l
	}
	i, msg := k.find(l.ID, l.File)
	if i < 0 {
		return k.problem(n, l.ID, msg), -1, res, l
	}
	c := k.Cases[i]
	switch l.Type {
	case "", "check":
		res, err := k.judge(c, l, now())
		if err != nil {
			return k.problem(n, l.ID, err.Error()), -1, res, l
		}
		return k.result(i, res), i, res, l
	case "next":
		req, err := k.next(c, l)
		if err != nil {
			return k.problem(n, l.ID, err.Error()), -1, res, l
		}
		return req, -1, res, l
	}
	return k.problem(n, l.ID, fmt.Sprintf("type %q: expected \"check\", \"next\" or \"cases\"", l.Type)), -1, res, l
}

// listing answers a "cases" line: the listing of `cassette cases --json`
// (of one adapter when given) from the cases this check loaded, so that a
// binding that lists and judges through one check loads the cassettes
// once, and judges each case from what its listing was made of.
func (k *Checker) listing(adapter string, now time.Time) (*Listing, error) {
	cases := k.Cases
	if adapter != "" {
		cfg := k.Options.Config
		if _, ok := cfg.Adapters[adapter]; !ok {
			return nil, fmt.Errorf("adapter %q: no such adapter in %s (declared adapters: %s)", adapter, cfg.Path, strings.Join(cfg.Order, ", "))
		}
		cases = nil
		for _, c := range k.Cases {
			if c.Cassette.Adapter == adapter {
				cases = append(cases, c)
			}
		}
	}
	l, err := List(cases, k.Options, now)
	if l != nil {
		l.Type = "cases"
	}
	return l, err
}

// find returns the index of the case a line names (by file when given,
// which is unique), or -1 and why not.
func (k *Checker) find(id, file string) (int, string) {
	if file != "" {
		i, ok := k.byFile[file]
		if !ok || id != "" && k.Cases[i].ID() != id {
			return -1, fmt.Sprintf("no case %s in file %q: run `cassette cases --json` for the cases", id, file)
		}
		return i, ""
	}
	switch is := k.byID[id]; {
	case id == "":
		return -1, "the line names no case: set id (and file when the id is not unique)"
	case len(is) == 0:
		return -1, fmt.Sprintf("no case %q in this project: run `cassette cases --json` for the cases", id)
	case len(is) > 1:
		return -1, fmt.Sprintf("%d cassettes are case %q: set file as well", len(is), id)
	default:
		return is[0], ""
	}
}

// judge decides a check line as verify decides a case.
func (k *Checker) judge(c verify.Case, l Line, now time.Time) (verify.Result, error) {
	d := time.Duration(l.DurationMS * float64(time.Millisecond))
	opts := k.Options
	opts.Now = func() time.Time { return now }
	var (
		got     *cassettes.Cassette
		actions []verdict.Action
		err     error
	)
	switch {
	case l.Error != "":
		res := verify.Errored(c, l.Error, nil, opts)
		res.Duration = d
		return res, nil
	case c.Cassette.Kind == cfgschema.KindCLI:
		if l.CLI == nil || l.HTTP != nil {
			return verify.Result{}, fmt.Errorf("case %s is a CLI case: send cli {stdout, stderr, exit_code} (or error)", c.ID())
		}
		got, actions, err = cliGot(c, l.CLI)
	default:
		if l.HTTP == nil || l.CLI != nil {
			return verify.Result{}, fmt.Errorf("case %s is an HTTP case: send http {responses} (or error)", c.ID())
		}
		got, actions, err = httpGot(c, l.HTTP.Responses)
	}
	if err != nil {
		return verify.Result{}, err
	}
	res := verify.Judge(c, got, actions, opts)
	res.Duration = d
	return res, nil
}

func cliGot(c verify.Case, o *CLIOutput) (*cassettes.Cassette, []verdict.Action, error) {
	stdout, err := decode(o.Stdout, o.StdoutBase64, "cli.stdout")
	if err != nil {
		return nil, nil, err
	}
	stderr, err := decode(o.Stderr, o.StderrBase64, "cli.stderr")
	if err != nil {
		return nil, nil, err
	}
	out := cassettes.Output{Stdout: cassettes.Body(stdout), Stderr: cassettes.Body(stderr), ExitCode: o.ExitCode}
	var argv []string
	if in := c.Cassette.Input; in != nil {
		argv = append([]string{in.Command}, in.Args...)
	}
	act := verdict.Action{Kind: "proc", ID: "output", Argv: argv, Stdout: stdout, Stderr: stderr, Exit: o.ExitCode}
	return verify.WithOutput(c.Cassette, out), []verdict.Action{act}, nil
}

func httpGot(c verify.Case, rs []Response) (*cassettes.Cassette, []verdict.Action, error) {
	responses, err := responsesOf(rs)
	if err != nil {
		return nil, nil, err
	}
	got, err := verify.WithResponses(c.Cassette, responses)
	if err != nil {
		return nil, nil, fmt.Errorf("http.responses: %w", err)
	}
	actions := make([]verdict.Action, len(responses))
	for i, r := range responses {
		req := c.Cassette.Interactions[i].Request
		actions[i] = verdict.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: req.Method, URL: req.URL,
			StatusCode: r.Code, Body: r.Body.Bytes()}
	}
	return got, actions, nil
}

// responsesOf turns the wire responses into cassette responses.
func responsesOf(rs []Response) ([]cassettes.Response, error) {
	out := make([]cassettes.Response, len(rs))
	for i, r := range rs {
		if r.Status < 100 || r.Status > 999 {
			return nil, fmt.Errorf("http.responses[%d].status %d: expected an HTTP status code", i, r.Status)
		}
		body, err := decode(r.Body, r.BodyBase64, fmt.Sprintf("http.responses[%d].body", i))
		if err != nil {
			return nil, err
		}
		h := http.Header{}
		for name, vs := range r.Headers {
			h[http.CanonicalHeaderKey(name)] = append(h[http.CanonicalHeaderKey(name)], vs...)
		}
		out[i] = cassettes.Response{Code: r.Status, Headers: h, Body: cassettes.Body(body), ContentLength: int64(len(body))}
		if r.Reason != "" {
			out[i].Status = fmt.Sprintf("%d %s", r.Status, r.Reason)
		}
	}
	return out, nil
}

// next answers a "next" line: the request after the responses it carries.
func (k *Checker) next(c verify.Case, l Line) (NextRequest, error) {
	if c.Cassette.Kind == cfgschema.KindCLI || l.HTTP == nil {
		return NextRequest{}, fmt.Errorf("next is for HTTP cases: send http {responses} with the responses so far")
	}
	earlier, err := responsesOf(l.HTTP.Responses)
	if err != nil {
		return NextRequest{}, err
	}
	r, err := request(c, len(earlier), earlier, k.Options)
	if err != nil {
		return NextRequest{}, err
	}
	return NextRequest{Type: "request", ID: c.ID(), Index: len(earlier), Request: r}, nil
}

// result renders case i's verdict for the harness.
func (k *Checker) result(i int, res verify.Result) Result {
	c := k.Cases[i]
	r := Result{Type: "result", ID: c.ID(), File: k.files[i],
		Line: max(1, c.Cassette.Line("scenario")), Status: res.Status, Message: res.Message,
		Quarantined: res.Quarantine != nil, Drifts: res.Drifts, Explain: res.Explain}
	if r.Drifts == nil {
		r.Drifts = []verdict.Drift{}
	}
	if res.Status == verdict.StatusPass {
		return r
	}
	r.Reason = string(res.Reason)
	r.Blocking = res.Quarantine == nil || res.Reason == outcome.EQuarantineExpired
	if len(res.Drifts) > 0 && res.Drifts[0].Line > 0 {
		r.Line = res.Drifts[0].Line
	}
	r.Text = fmt.Sprintf("%s:%d: %s", r.File, r.Line, res.Message)
	if res.Explain != "" {
		r.Text += "\n" + strings.TrimRight(res.Explain, "\n")
	}
	return r
}

func (k *Checker) problem(n int, id, msg string) Problem {
	return Problem{Type: "error", Input: n, ID: id, Reason: string(outcome.EUsage), Message: fmt.Sprintf("stdin line %d: %s (cassette cases --json lists the cases and the fields each one takes)", n, msg),
		NextStep: outcome.Command("cassette", "cases", "--json")}
}

// index builds the lookups of the cases by id and by file.
func (k *Checker) index() {
	k.byID, k.byFile, k.files = map[string][]int{}, map[string]int{}, make([]string, len(k.Cases))
	for i, c := range k.Cases {
		k.byID[c.ID()] = append(k.byID[c.ID()], i)
		k.files[i] = verify.ShardKey(k.Options.Config.Dir, c.Cassette.Path)
		k.byFile[k.files[i]] = i
	}
}

// Run is the run model of a check, for the report files and the summary:
// the checked cases as verify reports them, each with the harness's replay
// command when it gave one; a check with refused lines is a usage error.
func (done *Checked) Run(cfg *cfgschema.Config, tool verdict.Tool) *verdict.Run {
	run := done.Outcome.Report(cfg, verify.Meta{Tool: tool, Command: "check"})
	run.Inventory = slices.CompactFunc(run.Inventory, func(a, b verdict.InventoryItem) bool { return a.Path == b.Path }) // a cassette two tests drove
	for i, again := range done.Replay {
		run.Cases[i].ReplayCommand = again
		if t := done.Tests[i]; t != "" {
			// One result per case and test: the test names it, as the
			// runner names it.
			run.Cases[i].Scenario += " (" + t + ")"
		}
	}
	if done.First != nil {
		run.Err = &outcome.Error{Reason: outcome.EUsage, NextStep: done.First.NextStep,
			Message: fmt.Sprintf("%d lines of the harness were refused; the first: %s", done.Problems, done.First.Message)}
	}
	return run
}

// Summarize is the summary line of a check: the counts of its results and
// the run's exit code and reason.
func Summarize(done *Checked, run *verdict.Run) Summary {
	s := Summary{Type: "summary", Protocol: Version, Checked: len(run.Cases), Problems: done.Problems,
		ExitCode: int(run.Exit()), Reason: string(run.Reason())}
	for i := range run.Cases {
		c := &run.Cases[i]
		switch {
		case c.Status != verdict.StatusFail && c.Status != verdict.StatusError:
			s.Passed++
		case c.Quarantined(run.Started):
			s.Quarantined++
		default:
			s.Failed++
		}
	}
	return s
}
