package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The file names Write uses in the report directory.
const (
	FileJUnit   = "junit.xml"
	FileSARIF   = "sarif.json"
	FileSummary = "summary.json"
	FileReport  = "report.jsonl"
	FileLog     = "log.jsonl"
	FileRun     = "run.json"
)

// DefaultDir is the default report directory (--report-dir).
const DefaultDir = ".cassette/reports"

// Options controls how reports are written.
type Options struct {
	// Golden omits volatile fields (times, durations, host) from every file,
	// so that two runs over the same inputs write identical bytes.
	Golden bool `json:"golden"`
	// SARIFLimit is the most results sarif.json keeps; 0 means
	// DefaultSARIFLimit.
	SARIFLimit int `json:"sarif_limit,omitempty"`
	// PreviewBytes bounds each base64url preview in report.jsonl; 0 means
	// DefaultPreviewBytes.
	PreviewBytes int `json:"preview_bytes,omitempty"`
	// Now is the clock for generated_at and log timestamps; nil means
	// time.Now.
	Now func() time.Time `json:"-"`
	// Host is written as report.jsonl's volatile host field when set.
	Host string `json:"-"`
	// Declared are the values of the declared credential variables (name →
	// value): the secret scan looks for them, besides the known key
	// formats, in every file before it is written. Never persisted.
	Declared map[string]string `json:"-"`
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// runFile is run.json: the run model and the options it was written with,
// which is all Merge needs.
type runFile struct {
	SchemaVersion int `json:"schema_version"`
	// The seeds at top level, as specs/002 §3.3.1 requires of run.json.
	SeedVersion int     `json:"seed_version"`
	OrderSeed   *string `json:"order_seed"`
	JudgeSeed   *string `json:"judge_seed"`
	*Run
	Error   *runError `json:"error,omitempty"`
	Options Options   `json:"options"`
}

type runError struct {
	Reason   outcome.Reason `json:"reason"`
	Message  string         `json:"message"`
	NextStep string         `json:"next_step,omitempty"`
	Problems []ProblemJSON  `json:"problems,omitempty"`
}

// Files are rendered report files: name (slash-separated, relative to the
// directory they go in) → content.
type Files map[string][]byte

// Render renders every report file of run in memory, each once: junit.xml,
// sarif.json, summary.json, report.jsonl, log.jsonl, run.json and
// report.html. It reads and writes nothing: the run holds all it shows.
func Render(run *Run, opts Options) (Files, error) {
	if opts.Golden {
		run = goldenRun("", run)
	}
	files := Files{}
	sl, omitted := run.sarif(opts)
	var err error
	if files[FileSARIF], err = indentJSON(sl); err != nil {
		return nil, err
	}
	if files[FileSummary], err = indentJSON(run.summary(opts, omitted)); err != nil {
		return nil, err
	}
	if files[FileJUnit], err = run.junit(opts); err != nil {
		return nil, err
	}
	if files[FileReport], err = run.jsonl(opts); err != nil {
		return nil, err
	}
	if files[FileLog], err = run.testLog(opts); err != nil {
		return nil, err
	}
	if files[FileRun], err = run.runJSON(opts); err != nil {
		return nil, err
	}
	if files[FileHTML], err = run.html(opts); err != nil {
		return nil, err
	}
	if run.Coverage != nil {
		if files[FileCoverage], err = run.coverageJSON(); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func (r *Run) runJSON(opts Options) ([]byte, error) {
	cp := *r
	cp.Inventory = normalizedInventory(r.Inventory)
	cp.Cases = nil
	for _, c := range r.sortedCases() {
		cc := *c
		if q := c.Quarantine; q != nil && !c.Quarantined(r.now()) {
			qc := *q
			qc.Expired = true
			cc.Quarantine = &qc
		}
		cp.Cases = append(cp.Cases, cc)
	}
	rf := runFile{SchemaVersion: 1, SeedVersion: SeedVersion, OrderSeed: seedString(r.Seeds.Order), JudgeSeed: seedString(r.Seeds.Judge),
		Run: &cp, Options: Options{Golden: opts.Golden, SARIFLimit: opts.SARIFLimit, PreviewBytes: opts.PreviewBytes}}
	if opts.Golden {
		cp.Started, cp.Finished = time.Time{}, time.Time{}
		for i := range cp.Cases {
			cp.Cases[i].Duration = 0
			cp.Cases[i].Actions = append([]verdict.Action(nil), cp.Cases[i].Actions...)
			for j := range cp.Cases[i].Actions {
				cp.Cases[i].Actions[j].Duration = 0
			}
		}
	}
	if r.Err != nil {
		rf.Error = &runError{Reason: r.Err.Reason, Message: r.Err.Message, NextStep: r.Err.NextStep, Problems: problemsJSON(r.Err.Problems)}
	}
	return indentJSON(rf)
}

func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// scan runs the secret scan over every file; the error names each finding's
// file, line and kind, never the value.
func scan(dir string, run *Run, files map[string][]byte, declared map[string]string) error {
	probs := scanPayloads(dir, run, declared)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, f := range redact.Scan(files[n], declared) {
			probs = append(probs, outcome.Problem{File: filepath.Join(dir, filepath.FromSlash(n)), Line: f.Line, Column: f.Column,
				Message: "credential of kind " + f.Kind + " would be written", Expected: redact.Redacted})
		}
	}
	return leakError(probs)
}

// scanPayloads scans the bytes that files carry encoded (base64 previews,
// run.json's byte fields), where the text scan cannot see them, decoded
// when compressed.
func scanPayloads(dir string, run *Run, declared map[string]string) []outcome.Problem {
	var probs []outcome.Problem
	check := func(field string, data []byte) {
		found, err := scanPayload(data, declared)
		if err != nil {
			probs = append(probs, undecodableProblem(dir, field, err))
		}
		for _, f := range found {
			probs = append(probs, outcome.Problem{File: dir, Field: field, Line: f.Line, Column: f.Column,
				Message: "credential of kind " + f.Kind + " would be written (encoded)", Expected: redact.Redacted})
		}
	}
	check("config", run.ConfigBytes)
	for _, c := range run.sortedCases() {
		for _, side := range []struct {
			name string
			acts []verdict.Action
		}{{"actions", c.Actions}, {"recorded", c.Recorded}} {
			for i, a := range side.acts {
				pfx := fmt.Sprintf("cases[%s].%s[%d].", c.ID(), side.name, i)
				check(pfx+"body", a.Body)
				check(pfx+"stdout", a.Stdout)
				check(pfx+"stderr", a.Stderr)
			}
		}
	}
	return probs
}

func leakError(probs []outcome.Problem) error {
	if len(probs) == 0 {
		return nil
	}
	return &outcome.Error{Reason: outcome.ESecretLeak, Problems: probs,
		Message:  fmt.Sprintf("refusing to write reports: %d credential(s) found by the secret scan; nothing was written (redact the value at its source: declare its variable under credentials: in cassette.yaml)", len(probs)),
		NextStep: outcome.Command("cassette", "verify")}
}

// Write writes junit.xml, sarif.json, summary.json, report.jsonl, log.jsonl
// and run.json into dir (created if needed). Every file is rendered and
// secret-scanned before any is written; on a finding Write returns an
// E_SECRET_LEAK error, writes nothing and removes the previous run's files
// of these names so that no stale result is read. Each file is replaced
// atomically.
func Write(dir string, run *Run, opts Options) error {
	_, err := write(dir, run, opts)
	return err
}

// write is Write that returns the files it wrote.
func write(dir string, run *Run, opts Options) (Files, error) {
	run = redactPayloads(withLocalArtifacts(dir, run), opts.Declared)
	scrubLogs(dir, run, opts.Declared) // the fakes' logs get the cassettes' redaction
	if opts.Golden {
		run = goldenRun(dir, run)
	}
	files, err := Render(run, opts)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot render reports: a bug in cassette; report it with the version below", Err: err, NextStep: outcome.Command("cassette", "version")}
	}
	if err := scan(dir, run, files, opts.Declared); err != nil {
		for n := range files {
			_ = os.Remove(filepath.Join(dir, n))
		}
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ioError(dir, err)
	}
	for _, n := range sortedNames(files) {
		if err := writeAtomic(filepath.Join(dir, n), files[n]); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeAtomic writes data through cassettes' atomic write (temp file,
// fsync, rename, directory fsync).
func writeAtomic(path string, data []byte) error {
	return cassettes.WriteFileAtomic(path, data, 0o644)
}

func ioError(path string, err error) error {
	return &outcome.Error{Reason: outcome.EIO, Message: "cannot write " + path, Err: err,
		Problems: []outcome.Problem{{File: path, Message: err.Error()}},
		NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
}

func dirOf(path string) string { return filepath.Dir(path) }

func redactValue(v string, declared map[string]string) string {
	return redact.RedactString(v, declared)
}

// WriteNextStep prints the run's next step as one console line,
// "next step: <command>", when the run did not pass; it prints nothing for
// a passing run. The console and summary.json's next_step then always agree.
func WriteNextStep(w io.Writer, run *Run) error {
	ns := run.NextStepCommand()
	if ns == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "next step: %s\n", ns)
	return err
}

// normalizedInventory sorts items by path and drops repeated paths.
func normalizedInventory(items []InventoryItem) []InventoryItem {
	s := append([]InventoryItem(nil), items...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Path < s[j].Path })
	out := s[:0]
	for i, it := range s {
		if i > 0 && s[i-1].Path == it.Path {
			continue
		}
		out = append(out, it)
	}
	return out
}

// withLocalArtifacts returns run with the paths of artifacts that live in
// the report directory (the fakes' logs) made relative to it, so that the
// reports do not depend on where the directory is.
func withLocalArtifacts(dir string, run *Run) *Run {
	out := *run
	out.Cases = make([]verdict.Case, len(run.Cases))
	for i, c := range run.Cases {
		if len(c.Artifacts) > 0 {
			arts := make([]verdict.Artifact, len(c.Artifacts))
			for j, a := range c.Artifacts {
				if rel, err := filepath.Rel(dir, a.Path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
					a.Path = filepath.ToSlash(rel)
				}
				arts[j] = a
			}
			c.Artifacts = arts
		}
		out.Cases[i] = c
	}
	return &out
}
