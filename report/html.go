package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/diff"
	"github.com/cassette-dev/cassette/normalize"
)

// FileHTML is the human report Write puts next to the machine ones: one
// self-contained page (inline CSS, no script, no network) that shows each
// drifting case side by side, openable straight from a CI artifact.
const FileHTML = "report.html"

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Parse(htmlSource))

// WriteHTML (re)builds report.html in dir from run alone, as `cassette
// report html DIR` does from the run.json of an earlier run. The page is
// secret-scanned like every report file, then replaced atomically.
func WriteHTML(dir string, run *Run, opts Options) error {
	page, err := run.html(opts)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot render " + FileHTML + ": a bug in cassette; report it with the version below", Err: err, NextStep: cassettes.Command("cassette", "version")}
	}
	if err := scan(dir, run, map[string][]byte{FileHTML: page}, opts.Declared); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioError(dir, err)
	}
	return writeAtomic(filepath.Join(dir, FileHTML), page)
}

// html renders report.html. What the run model carries (drifts, the fake's
// normalized outputs in the actions) is shown as is; the recorded side is
// the committed cassette, found from the working directory by its path and
// accepted only when its SHA-256 is the one the run's inventory recorded,
// then normalized with the run's configuration. Without it, a case shows its
// drifts and their diffs only.
func (r *Run) html(opts Options) ([]byte, error) {
	page := r.htmlPage(opts, loadRecorded(r))
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, page); err != nil {
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
	Quarantine                                                         *QuarantineInfo
	Drifts                                                             []htmlDrift
	Parts                                                              []*htmlPart
	Note                                                               string // why the recorded side is not shown
	Artifacts                                                          []Artifact
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

func (r *Run) htmlPage(opts Options, rec map[string]*cassettes.Cassette) *htmlPage {
	p := &htmlPage{Command: r.command(), Suite: r.Suite, Outcome: r.Message(), ExitCode: int(r.Exit()),
		Reason: string(r.Reason()), NextStep: r.NextStepCommand(), Failed: r.Exit() != cassettes.ExitPass}
	p.Title = fmt.Sprintf("cassette %s — %s", p.Command, cmp.Or(r.Suite, "report"))
	p.Bar = r.htmlBar()
	p.Provenance = r.htmlProvenance(opts)
	if e := r.Err; e != nil {
		re := &htmlRunError{Reason: string(r.Reason()), Message: e.Message, NextStep: e.NextStep}
		for _, pr := range e.Problems {
			re.Problems = append(re.Problems, pr.String())
		}
		p.RunError = re
	}
	for _, c := range r.sortedCases() {
		hc := r.htmlCase(c, opts, rec[c.CassettePath])
		switch c.Status {
		case StatusPass:
			p.Passed = append(p.Passed, hc)
		case StatusSkipped:
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
		case c.Status == StatusSkipped:
			skip++
		case !c.failed():
			pass++
		case c.Quarantined(r.now()):
			quar++
		case c.reason(r.now()).Exit() == cassettes.ExitInfra:
			infra++
		case c.Status == StatusFail:
			drift++
		default:
			other++
		}
	}
	bar := []htmlCount{{"passed", "pass", pass}, {"drifted", "fail", drift}, {"infrastructure", "infra", infra}}
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

func (r *Run) htmlCase(c *Case, opts Options, want *cassettes.Cassette) *htmlCase {
	hc := &htmlCase{ID: c.ID(), Anchor: anchor("case", c.ID()), Status: string(c.Status), StatusClass: string(c.Status),
		Message: c.Message, NextStep: c.NextStep, Quarantine: c.Quarantine, Artifacts: c.Artifacts, Location: c.CassettePath}
	if c.failed() {
		hc.Reason = string(c.reason(r.now()))
		hc.Replay = r.digest(c).ReplayCase
		if c.Quarantined(r.now()) {
			hc.StatusClass = "quar"
		} else if c.reason(r.now()).Exit() == cassettes.ExitInfra {
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
	if c.Status == StatusPass || c.Status == StatusSkipped {
		return hc
	}
	switch {
	case want == nil && len(c.Drifts) > 0 && r.Command == "refresh":
		hc.Note = "The re-recorded cassette is on the refresh branch; each drift's diff is below."
	case want == nil && len(c.Drifts) > 0:
		hc.Note = "The recorded side is not shown: the committed cassette " + c.CassettePath +
			" was not found from this directory with the content this run used. Each drift's diff is below."
	case want != nil:
		hc.Parts = r.htmlParts(c, want)
	}
	return hc
}

// htmlParts pairs the recorded (want) and the fake's (got) outputs, both
// normalized, part by part.
func (r *Run) htmlParts(c *Case, want *cassettes.Cassette) []*htmlPart {
	paths := map[string][]string{} // field → JSONPaths that drifted
	drifted := map[string]bool{}
	headerDrift := map[string]string{}
	for _, d := range c.Drifts {
		field := d.Field
		if d.Class == string(diff.ClassHeaders) {
			if i := strings.LastIndex(field, ".headers."); i >= 0 {
				headerDrift[field[:i+len(".headers")]+"\x00"+http.CanonicalHeaderKey(field[i+len(".headers."):])] = driftOnce(d)
				drifted[field[:i+len(".headers")]] = true
				continue
			}
		}
		drifted[field] = true
		if d.JSONPath != "" {
			paths[field] = append(paths[field], d.JSONPath)
		}
	}
	actions := map[string]*Action{}
	for i := range c.Actions {
		actions[c.Actions[i].ID] = &c.Actions[i]
	}
	var parts []*htmlPart
	for i, it := range want.Interactions {
		f := fmt.Sprintf("interactions[%d]", i)
		rf := f + ".response"
		part := &htmlPart{Title: fmt.Sprintf("%s: %s %s", f, it.Request.Method, it.Request.URL), Field: rf, Anchor: anchor(c.ID(), f)}
		got := actions[f]
		wantStatus := strings.TrimSpace(fmt.Sprintf("%d %s", it.Response.Code, http.StatusText(it.Response.Code)))
		gotStatus := "no response"
		if got != nil && got.Err == "" {
			gotStatus = strings.TrimSpace(fmt.Sprintf("%d %s", got.StatusCode, http.StatusText(got.StatusCode)))
		} else if got != nil {
			gotStatus = "no response: " + got.Err
		}
		part.Status = &htmlPair{Label: "status", Want: wantStatus, Got: gotStatus, Changed: drifted[rf+".code"] || (got != nil && got.StatusCode != it.Response.Code)}
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range it.Response.Headers {
				if !yield(k) {
					return
				}
			}
		}) {
			ck := http.CanonicalHeaderKey(name)
			part.Headers = append(part.Headers, htmlHeader{Name: ck, Want: strings.Join(it.Response.Headers[name], ", "), Drift: headerDrift[rf+".headers\x00"+ck]})
			delete(headerDrift, rf+".headers\x00"+ck)
		}
		for k, msg := range headerDrift { // headers the fake added
			if name, ok := strings.CutPrefix(k, rf+".headers\x00"); ok {
				part.Headers = append(part.Headers, htmlHeader{Name: name, Drift: msg})
			}
		}
		sort.SliceStable(part.Headers, func(a, b int) bool { return part.Headers[a].Name < part.Headers[b].Name })
		var gotBody []byte
		if got != nil {
			gotBody = got.Body
		}
		ct := it.Response.Headers.Get("Content-Type")
		part.Body = bodyView(part.Anchor, ct, it.Response.Body.Bytes(), gotBody, paths[rf+".body"])
		part.Drifted = part.Status.Changed || drifted[rf+".body"] || drifted[rf+".headers"] || drifted[rf+".code"]
		parts = append(parts, part)
	}
	if want.Output != nil {
		got := actions["output"]
		var g Action
		if got != nil {
			g = *got
		}
		exit := &htmlPair{Label: "exit code", Want: fmt.Sprint(want.Output.ExitCode), Got: fmt.Sprint(g.Exit), Changed: g.Exit != want.Output.ExitCode}
		if got == nil || got.Err != "" {
			exit.Got = "did not run"
			if got != nil {
				exit.Got += ": " + got.Err
			}
			exit.Changed = true
		}
		title := "output"
		if want.Input != nil {
			title = "$ " + strings.Join(append([]string{want.Input.Command}, want.Input.Args...), " ")
		}
		parts = append(parts, &htmlPart{Title: title, Field: "output.exit_code", Anchor: anchor(c.ID(), "exit"), Status: exit, Drifted: exit.Changed})
		for _, s := range []struct {
			field     string
			want, got []byte
		}{{"output.stdout", want.Output.Stdout.Bytes(), g.Stdout}, {"output.stderr", want.Output.Stderr.Bytes(), g.Stderr}} {
			if len(s.want) == 0 && len(s.got) == 0 {
				continue
			}
			a := anchor(c.ID(), s.field)
			parts = append(parts, &htmlPart{Title: strings.TrimPrefix(s.field, "output."), Field: s.field, Anchor: a, Drifted: drifted[s.field],
				Body: bodyView(a, "", s.want, s.got, paths[s.field])})
		}
	}
	return parts
}

// loadRecorded finds the committed cassette of every failed case and
// normalizes it as verify did: the configuration the run recorded
// (ConfigBytes) defines the project's normalizers, and the adapter's
// normalizers come before the cassette's own. A cassette whose bytes are not
// the ones the run's inventory recorded is not shown.
func loadRecorded(r *Run) map[string]*cassettes.Cassette {
	out := map[string]*cassettes.Cassette{}
	want := map[string]string{}
	for _, it := range r.Inventory {
		want[it.Path] = it.SHA256
	}
	var needed []*Case
	for _, c := range r.sortedCases() {
		if c.failed() && c.CassettePath != "" && want[c.CassettePath] != "" {
			needed = append(needed, c)
		}
	}
	if len(needed) == 0 {
		return out
	}
	base := findBase(needed[0].CassettePath, want[needed[0].CassettePath])
	if base == "" {
		return out
	}
	reg := normalize.Builtins()
	var cfg *cassettes.Config
	if len(r.ConfigBytes) > 0 {
		c, err := cassettes.ParseConfig(filepath.Join(base, filepath.FromSlash(cmp.Or(r.ConfigPath, "cassette.yaml"))), r.ConfigBytes, cassettes.ConfigOptions{
			Normalizers: reg,
			DefineNormalizer: func(name string, d cassettes.NormalizerDef) error {
				return reg.Define(name, normalize.Definition{Regex: d.Regex, Replace: d.Replace, JSONPaths: d.JSONPaths, Headers: d.Headers})
			}})
		if err == nil {
			cfg = c
		}
	}
	for _, c := range needed {
		path := filepath.Join(base, filepath.FromSlash(c.CassettePath))
		data, err := os.ReadFile(path)
		if err != nil || sha256Hex(data) != want[c.CassettePath] {
			continue
		}
		cas, err := cassettes.Parse(path, data, cassettes.LoadOptions{Config: cfg, Normalizers: reg})
		if err != nil {
			continue
		}
		p, err := diff.Pipeline(cas, diff.Options{Registry: reg, Normalizers: func(k *cassettes.Cassette) []string {
			var names []string
			if cfg != nil && cfg.Adapters[k.Adapter] != nil {
				names = append(names, cfg.Adapters[k.Adapter].Normalizers...)
			}
			for _, n := range k.Normalizers {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			return names
		}})
		if err != nil {
			continue
		}
		out[c.CassettePath] = diff.Normalize(cas, p)
	}
	return out
}

// findBase is the directory, the working directory or one above it, that
// holds rel with the given SHA-256: cassette paths in reports are relative
// to the repository root (verify) or the project directory (refresh).
func findBase(rel, sum string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && sha256Hex(data) == sum {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
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
