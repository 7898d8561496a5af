package coverage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// What the fakes model is verify's figure: verify runs the fakes and
// counts, per adapter compared in modelled mode, the response fields
// reality returned that the fake gave too. Coverage runs no fake, so it
// shows the figure of the latest verify run, read from that run's
// summary.json (its `modelled` key), says which run that was and how old,
// and holds it to each adapter's coverage.min_modelled in the
// cassette.yaml of this run.

// VerifyReports is where `cassette verify` writes its reports by default
// (its --report-dir, relative to the working directory).
const VerifyReports = report.DefaultDir

// maxSummary bounds the summary.json coverage reads.
const maxSummary = 64 << 20

// Modelled is the modelled figure of the latest verify run.
type Modelled struct {
	// Summary is the summary.json read, or looked for when Found is false
	// (slash-separated, as the directory was given).
	Summary string
	Found   bool
	// Command is the command whose run wrote the reports read (run.json's
	// command): verify or check, which run the fakes. Another command's
	// reports there (refresh's) are not a verify run: Found is false.
	Command string
	// RunID is the verify run's correlation_id; Written when its
	// summary.json was written, Age how long before this run.
	RunID   string
	Written time.Time
	Age     time.Duration
	// Adapters are its figures, each Min the adapter's coverage.min_modelled.
	Adapters []verdict.ModelledAdapter
	// Err fails the run: an adapter below its coverage.min_modelled.
	Err *outcome.Error
}

// ReadModelled reads the modelled figures of the verify run whose reports
// are in dir (summary.json), each adapter's Min from cfg, at time now. No
// summary.json there is no error: Found is false. One that is not a
// regular file, too large or not a summary is E_CFG_PARSE naming it.
func ReadModelled(dir string, cfg *cfgschema.Config, now time.Time) (*Modelled, error) {
	path := filepath.Join(dir, report.FileSummary)
	m := &Modelled{Summary: filepath.ToSlash(path), Command: runCommand(dir)}
	f, fi, err := openNoBlock(path)
	if err == nil {
		defer f.Close()
	}
	if errors.Is(err, fs.ErrNotExist) || (m.Command != "" && m.Command != "verify" && m.Command != "check") {
		return m, nil
	}
	next := outcome.Command("cassette", "verify", "--report-dir", dir)
	bad := func(msg string, err error) error {
		return &outcome.Error{Reason: outcome.ECfgParse, Message: "cannot read the modelled figures of the latest verify run: " + msg, Err: err,
			Problems: []outcome.Problem{{File: path, Message: msg, Expected: "the summary.json `cassette verify` writes (specs/002 §3)"}}, NextStep: next}
	}
	switch {
	case err != nil:
		return nil, bad(err.Error(), err)
	case !fi.Mode().IsRegular():
		return nil, bad("not a regular file ("+fi.Mode().Type().String()+")", nil)
	case fi.Size() > maxSummary:
		return nil, bad(fmt.Sprintf("%d bytes, over the %d MiB a summary may hold", fi.Size(), maxSummary>>20), nil)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSummary+1))
	if err != nil {
		return nil, bad(err.Error(), err)
	}
	s, err := report.ParseSummary(path, data)
	if err != nil {
		return nil, err
	}
	m.Found, m.RunID, m.Written, m.Age = true, s.CorrelationID, fi.ModTime(), max(now.Sub(fi.ModTime()), 0)
	for _, a := range s.Modelled {
		a.Min = nil
		if ad := cfg.Adapters[a.Adapter]; ad != nil {
			a.Min = ad.Coverage.MinModelled
		}
		m.Adapters = append(m.Adapters, a)
	}
	// verify measures again, and its report.html lists what each fake leaves out
	m.Err = verdict.BelowMinModelled(m.Adapters, cfg.Path, cfg.Line, next)
	return m, nil
}

// runCommand is the command of the run.json in dir ("" when there is
// none, or it does not say): its top-level "command", read without
// decoding the cases that follow it.
func runCommand(dir string) string {
	f, st, err := openNoBlock(filepath.Join(dir, report.FileRun))
	if err != nil {
		return ""
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return "" // a FIFO or a device says nothing (and must not hang coverage)
	}
	dec := json.NewDecoder(io.LimitReader(f, maxSummary))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "command" {
			var c string
			dec.Decode(&c)
			return c
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// readModelled is the latest verify run's figure (ReadModelled, from
// opts.VerifyReports). A project that compares nothing in modelled mode
// gets it only when that run measured something, and never an error
// about it: nil, as before modelled mode existed.
func readModelled(cfg *cfgschema.Config, list []*cassettes.Cassette, opts Options) (*Modelled, error) {
	dir := cmp.Or(opts.VerifyReports, filepath.FromSlash(VerifyReports))
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	m, err := ReadModelled(dir, cfg, now())
	if comparesModelled(cfg, list) {
		return m, err
	}
	if err != nil || len(m.Adapters) == 0 {
		return nil, nil
	}
	return m, nil
}

// comparesModelled reports whether the project compares any cassette of
// list in modelled mode, or sets a coverage.min_modelled: then coverage
// shows the figure, or says that no verify run has measured it.
func comparesModelled(cfg *cfgschema.Config, list []*cassettes.Cassette) bool {
	for _, a := range cfg.Adapters {
		if a.Compare == cfgschema.CompareModelled || a.Coverage.MinModelled != nil {
			return true
		}
		for _, k := range a.Contracts {
			if k.Compare == cfgschema.CompareModelled {
				return true
			}
		}
	}
	for _, c := range list {
		if cassettes.ContractFor(cfg.Adapters[c.Adapter], c).Compare == cfgschema.CompareModelled {
			return true
		}
	}
	return false
}

// Note says where the figure comes from, or why there is none and what
// to run.
func (m *Modelled) Note() string {
	switch {
	case !m.Found && m.Command != "":
		return "no verify run yet (" + outcome.Printable(path.Dir(m.Summary)) + " holds the reports of `cassette " + outcome.Printable(m.Command) + "`): run `cassette verify`"
	case !m.Found:
		return "no verify run yet (no " + outcome.Printable(m.Summary) + "): run `cassette verify`"
	case len(m.Adapters) == 0:
		return "the latest verify run (" + outcome.Printable(m.RunID) + ", " + outcome.Printable(m.Summary) + ") compared no case in modelled mode"
	}
	return "from the latest verify run (" + outcome.Printable(m.RunID) + ", " + outcome.Printable(m.Summary) + "): coverage runs no fake"
}

// report is the figure as coverage.json holds it.
func (m *Modelled) report() *verdict.CoverageModelled {
	out := &verdict.CoverageModelled{Summary: m.Summary, Found: m.Found, RunID: m.RunID, Note: m.Note(), Adapters: m.Adapters}
	if out.Adapters == nil {
		out.Adapters = []verdict.ModelledAdapter{}
	}
	if m.Found {
		age := int64(m.Age / time.Second)
		out.Written, out.AgeSeconds = m.Written.UTC().Format(time.RFC3339), &age
	}
	return out
}

// writeModelled prints the figure under coverage's table: where it comes
// from and how old it is, then one line per adapter (red when below its
// coverage.min_modelled or missing a required field).
func (m *Modelled) writeModelled(w io.Writer, paint func(string, string) string) {
	if m == nil {
		return
	}
	if !m.Found || len(m.Adapters) == 0 {
		fmt.Fprintf(w, "modelled: %s\n", m.Note())
		return
	}
	fmt.Fprintf(w, "modelled: %s, written %s ago\n", m.Note(), m.Age.Round(time.Second))
	for _, a := range m.Adapters {
		line := "  " + outcome.Printable(a.String())
		if a.Below() || a.RequiredMissing > 0 {
			line = paint("31", line)
		}
		fmt.Fprintln(w, line)
	}
}
