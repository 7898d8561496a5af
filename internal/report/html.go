package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// FileHTML is the human report Write puts next to the machine ones: one
// self-contained page (inline CSS, no script, no network) that shows each
// drifting case side by side, openable straight from a CI artifact.
const FileHTML = "report.html"

//go:embed html.tmpl
var htmlSource string

// htmlTemplate is parsed when a report is first written, not at start-up
// (every command, a shim call included, would pay ~0.5 ms for it).
var htmlTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("report").Parse(htmlSource)) })

// WriteHTML (re)builds report.html in dir from run alone, as `cassette
// report html DIR` does from the run.json of an earlier run. The page is
// secret-scanned like every report file, then replaced atomically.
func WriteHTML(dir string, run *Run, opts Options) error {
	page, err := run.html(opts)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot render " + FileHTML + ": a bug in cassette; report it with the version below", Err: err, NextStep: outcome.Command("cassette", "version")}
	}
	if err := scan(dir, run, map[string][]byte{FileHTML: page}, opts.Declared); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioError(dir, err)
	}
	return writeAtomic(filepath.Join(dir, FileHTML), page)
}

// html renders report.html from the run model alone: the drifts, and for a
// case that failed both sides as they were compared (Case.Recorded and
// Case.Actions). It reads nothing and normalizes nothing.
func (r *Run) html(opts Options) ([]byte, error) {
	page := r.htmlPage(opts)
	var b bytes.Buffer
	if err := htmlTemplate().Execute(&b, page); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The page model: everything the template shows, already worded.
type htmlPage struct {
	Title      string
	Command    string
	Suite      string
	Outcome    string
	ExitCode   int
	Reason     string
	NextStep   string
	Failed     bool
	Bar        []htmlCount
	Provenance []htmlKV
	RunError   *htmlRunError
	Cases      []*htmlCase // the cases that failed, in report order
	Skipped    []*htmlCase
	Passed     []*htmlCase
	History    []htmlAdapterHistory
	Coverage   *htmlCoverage
	Modelled   []htmlModelledAdapter // modelled.go
	// Side names the side compared with the recording: "fake", or "real
	// service" for refresh, which compares a re-recording.
	Side string
}

type htmlCount struct {
	Label, Class string
	N            int
}

type htmlKV struct{ Key, Value string }

type htmlRunError struct {
	Reason, Message, NextStep string
	Problems                  []string
}

type htmlCase struct {
	ID, Anchor, Status, StatusClass, Reason, Message, NextStep, Replay string
	Location                                                           string // cassette file:line
	Duration                                                           string
	Quarantine                                                         *verdict.QuarantineInfo
	Drifts                                                             []htmlDrift
	Parts                                                              []*htmlPart
	Note                                                               string // why the recorded side is not shown
	Artifacts                                                          []verdict.Artifact
}

type htmlDrift struct {
	Class, Where, Location, Message string
	Diff                            template.HTML
}

// htmlPart is one compared part of a case: an HTTP interaction's response,
// or a CLI's exit code, stdout or stderr.
type htmlPart struct {
	Title, Field, Anchor string
	Drifted              bool
	Status               *htmlPair // HTTP status or exit code
	Headers              []htmlHeader
	Body                 *htmlBody
}

type htmlPair struct {
	Label, Want, Got string
	Changed          bool
}

type htmlHeader struct {
	Name, Want, Drift string
}

// htmlBody is a body shown side by side: panes already rendered to HTML by
// the views in htmlbody.go.
type htmlBody struct {
	Kind      string // json, jsonl, sse, text, binary, empty
	Want, Got template.HTML
	Note      template.HTML
	Records   []htmlRecord
}

type htmlRecord struct {
	Index         int
	State, Anchor string
	Open          bool
	Want, Got     template.HTML
}

// htmlAdapterHistory is the drift history of one adapter across refresh
// cycles, drawn as a small chart.
type htmlAdapterHistory struct {
	Adapter string
	Chart   template.HTML
	Summary string
}

func (r *Run) htmlPage(opts Options) *htmlPage {
	p := &htmlPage{Command: r.command(), Suite: r.Suite, Outcome: r.Message(), ExitCode: int(r.Exit()),
		Reason: string(r.Reason()), NextStep: r.NextStepCommand(), Failed: r.Exit() != outcome.ExitPass}
	p.Title = fmt.Sprintf("cassette %s — %s", p.Command, cmp.Or(r.Suite, "report"))
	p.Side = "fake"
	if r.Command == "refresh" {
		p.Side = "real service"
	}
	p.Bar = r.htmlBar()
	p.Provenance = r.htmlProvenance(opts)
	if e := r.Err; e != nil {
		re := &htmlRunError{Reason: string(r.Reason()), Message: e.Message, NextStep: e.NextStep}
		for _, pr := range e.Problems {
			re.Problems = append(re.Problems, pr.String())
		}
		p.RunError = re
	}
	p.Modelled = r.htmlModelled()
	if p.Coverage = r.htmlCoverage(); p.Coverage != nil {
		return p // its cases are the call shapes, which the coverage section shows
	}
	for _, c := range r.sortedCases() {
		hc := r.htmlCase(c, opts)
		switch c.Status {
		case verdict.StatusPass:
			p.Passed = append(p.Passed, hc)
		case verdict.StatusSkipped:
			p.Skipped = append(p.Skipped, hc)
		default:
			p.Cases = append(p.Cases, hc)
		}
	}
	p.History = r.htmlHistory()
	return p
}

// htmlBar counts the cases the way a reader triages them: a blocking
// failure is a drift, an infrastructure failure (exit class 3) or another
// failure (configuration); quarantined failures and skipped cases apart.
func (r *Run) htmlBar() []htmlCount {
	var pass, drift, infra, other, quar, skip int
	for _, c := range r.sortedCases() {
		switch {
		case c.Status == verdict.StatusSkipped:
			skip++
		case !c.Failed():
			pass++
		case c.Quarantined(r.now()):
			quar++
		case c.ReasonAt(r.now()).Exit() == outcome.ExitInfra:
			infra++
		case c.Status == verdict.StatusFail:
			drift++
		default:
			other++
		}
	}
	failed := "drifted"
	if r.Coverage != nil {
		failed = "uncovered" // a coverage run's failed cases are call shapes no cassette backs
	}
	bar := []htmlCount{{"passed", "pass", pass}, {failed, "fail", drift}, {"infrastructure", "infra", infra}}
	if other > 0 {
		bar = append(bar, htmlCount{"other failures", "fail", other})
	}
	return append(bar, htmlCount{"quarantined", "quar", quar}, htmlCount{"skipped", "skip", skip})
}

func (r *Run) htmlProvenance(opts Options) []htmlKV {
	tool := strings.TrimSpace(r.toolName() + " " + r.Tool.Version)
	if r.Tool.SHA != "" {
		tool += " (" + r.Tool.SHA + ")"
	}
	kv := []htmlKV{{"command", strings.TrimSpace(r.command() + " " + r.Mode)}, {"tool", tool}, {"suite", r.Suite}}
	if r.ConfigPath != "" {
		kv = append(kv, htmlKV{"config", r.ConfigPath})
	}
	kv = append(kv, htmlKV{"config sha256", sha256Hex(r.ConfigBytes)}, htmlKV{"cassettes sha256", InventoryDigest(r.Inventory)},
		htmlKV{"cassettes", fmt.Sprint(len(normalizedInventory(r.Inventory)))})
	if r.Shard != "" {
		kv = append(kv, htmlKV{"shard", r.Shard})
	}
	if !opts.Golden {
		if !r.Started.IsZero() {
			kv = append(kv, htmlKV{"started", r.Started.UTC().Format(time.RFC3339)})
		}
		kv = append(kv, htmlKV{"duration", r.Duration().Round(time.Millisecond).String()})
	}
	kv = append(kv, htmlKV{"trace id", r.traceID(opts.Golden)})
	return kv
}

func (r *Run) htmlCase(c *verdict.Case, opts Options) *htmlCase {
	hc := &htmlCase{ID: c.ID(), Anchor: anchor("case", c.ID()), Status: string(c.Status), StatusClass: string(c.Status),
		Message: c.Message, NextStep: c.NextStep, Quarantine: c.Quarantine, Artifacts: c.Artifacts, Location: c.CassettePath}
	if c.Failed() {
		hc.Reason = string(c.ReasonAt(r.now()))
		hc.Replay = r.digest(c).ReplayCase
		if c.Quarantined(r.now()) {
			hc.StatusClass = "quar"
		} else if c.ReasonAt(r.now()).Exit() == outcome.ExitInfra {
			hc.StatusClass = "infra"
		}
	}
	if !opts.Golden && c.Duration > 0 {
		hc.Duration = c.Duration.Round(time.Millisecond).String()
	}
	for _, d := range c.Drifts {
		loc := c.CassettePath
		if d.Line > 0 {
			loc = fmt.Sprintf("%s:%d", c.CassettePath, d.Line)
		}
		if hc.Location == c.CassettePath && d.Line > 0 {
			hc.Location = loc
		}
		hc.Drifts = append(hc.Drifts, htmlDrift{Class: d.Class, Where: strings.TrimSpace(d.Field + " " + d.JSONPath), Location: loc,
			Message: driftOnce(d), Diff: unifiedHTML(d.Diff)})
	}
	if c.Status == verdict.StatusPass || c.Status == verdict.StatusSkipped {
		return hc
	}
	switch {
	case len(c.Recorded) > 0:
		hc.Parts = htmlParts(c)
	case len(c.Drifts) > 0 && r.Command == "refresh":
		hc.Note = "The re-recorded cassette is on the refresh branch; each drift's diff is below."
	case len(c.Drifts) > 0:
		hc.Note = "The recorded side is not shown: this run does not hold it (a run.json of an earlier cassette version, " +
			"or a producer that gave only the drifts). Each drift's diff is below."
	}
	return hc
}

// htmlParts pairs the recorded (want) and the compared (got) sides of a
// case, both normalized, part by part, by action ID, in the recorded
// side's order.
func htmlParts(c *verdict.Case) []*htmlPart {
	m := markDrifts(c.Drifts)
	actions := map[string]*verdict.Action{}
	for i := range c.Actions {
		actions[c.Actions[i].ID] = &c.Actions[i]
	}
	var parts []*htmlPart
	for i := range c.Recorded {
		want := &c.Recorded[i]
		switch want.Kind {
		case "http":
			parts = append(parts, m.httpPart(c, want, actions[want.ID]))
		case "proc":
			parts = append(parts, m.procParts(c, want, actions[want.ID])...)
		}
	}
	return parts
}

// driftMarks say where a case drifted, for marking its parts.
type driftMarks struct {
	paths       map[string][]string // field → JSONPaths that drifted
	drifted     map[string]bool     // fields that drifted
	headerDrift map[string]string   // "<field>.headers\x00<Canonical-Name>" → drift
}

func markDrifts(drifts []verdict.Drift) *driftMarks {
	m := &driftMarks{paths: map[string][]string{}, drifted: map[string]bool{}, headerDrift: map[string]string{}}
	for _, d := range drifts {
		field := d.Field
		if d.Class == string(diff.ClassHeaders) {
			if i := strings.LastIndex(field, ".headers."); i >= 0 {
				m.headerDrift[field[:i+len(".headers")]+"\x00"+http.CanonicalHeaderKey(field[i+len(".headers."):])] = driftOnce(d)
				m.drifted[field[:i+len(".headers")]] = true
				continue
			}
		}
		m.drifted[field] = true
		if d.JSONPath != "" {
			m.paths[field] = append(m.paths[field], d.JSONPath)
		}
	}
	return m
}

// httpPart is one interaction's response: status, the recorded headers
// with their drifts (and the headers the fake added), the body.
func (m *driftMarks) httpPart(c *verdict.Case, want, got *verdict.Action) *htmlPart {
	f := want.ID
	rf := f + ".response"
	part := &htmlPart{Title: fmt.Sprintf("%s: %s %s", f, want.Method, want.URL), Field: rf, Anchor: anchor(c.ID(), f)}
	wantStatus := strings.TrimSpace(fmt.Sprintf("%d %s", want.StatusCode, http.StatusText(want.StatusCode)))
	gotStatus := "no response"
	if got != nil && got.Err == "" {
		gotStatus = strings.TrimSpace(fmt.Sprintf("%d %s", got.StatusCode, http.StatusText(got.StatusCode)))
	} else if got != nil {
		gotStatus = "no response: " + got.Err
	}
	part.Status = &htmlPair{Label: "status", Want: wantStatus, Got: gotStatus, Changed: m.drifted[rf+".code"] || (got != nil && got.StatusCode != want.StatusCode)}
	part.Headers = m.headers(rf, want.Headers)
	var gotBody []byte
	if got != nil {
		gotBody = got.Body
	}
	part.Body = bodyView(part.Anchor, want.Headers.Get("Content-Type"), want.Body, gotBody, m.paths[rf+".body"])
	part.Drifted = part.Status.Changed || m.drifted[rf+".body"] || m.drifted[rf+".headers"] || m.drifted[rf+".code"]
	return part
}

// headers lists the recorded headers of the response at rf with their
// drifts, and the headers the fake added, by name.
func (m *driftMarks) headers(rf string, want http.Header) []htmlHeader {
	var out []htmlHeader
	shown := map[string]bool{} // drifts shown beside a recorded header
	for _, name := range slices.Sorted(maps.Keys(want)) {
		k := rf + ".headers\x00" + http.CanonicalHeaderKey(name)
		h := htmlHeader{Name: http.CanonicalHeaderKey(name), Want: strings.Join(want[name], ", ")}
		if !shown[k] {
			h.Drift, shown[k] = m.headerDrift[k], true
		}
		out = append(out, h)
	}
	for k, msg := range m.headerDrift { // headers the fake added
		if name, ok := strings.CutPrefix(k, rf+".headers\x00"); ok && !shown[k] {
			out = append(out, htmlHeader{Name: name, Drift: msg})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// procParts are a command's exit code, then its stdout and stderr when
// either side has any.
func (m *driftMarks) procParts(c *verdict.Case, want, got *verdict.Action) []*htmlPart {
	var g verdict.Action
	if got != nil {
		g = *got
	}
	exit := &htmlPair{Label: "exit code", Want: fmt.Sprint(want.Exit), Got: fmt.Sprint(g.Exit), Changed: g.Exit != want.Exit}
	if got == nil || got.Err != "" {
		exit.Got = "did not run"
		if got != nil {
			exit.Got += ": " + got.Err
		}
		exit.Changed = true
	}
	title := "output"
	if len(want.Argv) > 0 {
		title = "$ " + strings.Join(want.Argv, " ")
	}
	parts := []*htmlPart{{Title: title, Field: "output.exit_code", Anchor: anchor(c.ID(), "exit"), Status: exit, Drifted: exit.Changed}}
	for _, s := range []struct {
		field     string
		want, got []byte
	}{{"output.stdout", want.Stdout, g.Stdout}, {"output.stderr", want.Stderr, g.Stderr}} {
		if len(s.want) == 0 && len(s.got) == 0 {
			continue
		}
		a := anchor(c.ID(), s.field)
		parts = append(parts, &htmlPart{Title: strings.TrimPrefix(s.field, "output."), Field: s.field, Anchor: a, Drifted: m.drifted[s.field],
			Body: bodyView(a, "", s.want, s.got, m.paths[s.field])})
	}
	return parts
}

// anchor is a stable HTML id made of the parts.
func anchor(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('-')
		}
		for _, c := range p {
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
				b.WriteRune(c)
			default:
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}
