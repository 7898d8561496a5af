package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Destination says where [Publish] puts the reports of a run.
type Destination struct {
	// Dir is the report directory (--report-dir).
	Dir string
	// StepSummary is the file GITHUB_STEP_SUMMARY names; "" writes no job
	// summary. Links say where cassette lines are on the forge.
	StepSummary string
	Links       Links
	// BundleRoot is the directory bundles go below (--bundle-dir); "" writes
	// no bundle. Bundle is what the bundle holds besides the reports.
	BundleRoot string
	Bundle     BundleFiles
}

// Published is what [Publish] wrote.
type Published struct {
	// Files are the report files as written to Destination.Dir.
	Files Files
	// Bundle is the bundle's directory; "" when none was written.
	Bundle string
}

// Publish renders the report files of run once and writes them into d.Dir
// ([Write]), appends the job summary to d.StepSummary
// ([AppendStepSummary]) and writes the forensic bundle below d.BundleRoot
// ([WriteBundle]), whose reports/ are the very bytes written to d.Dir. It
// stops at the first error; what was written before stays.
func Publish(run *Run, opts Options, d Destination) (*Published, error) {
	run = redactPayloads(run, opts.Declared) // once: write and WriteBundle take it as it is
	files, err := write(d.Dir, run, opts)
	if err != nil {
		return nil, err
	}
	out := &Published{Files: files}
	if err := AppendStepSummary(d.StepSummary, run, d.Links, opts); err != nil {
		return out, err
	}
	if d.BundleRoot == "" {
		return out, nil
	}
	b := d.Bundle
	b.Options, b.Reports = opts, files
	if out.Bundle, err = WriteBundle(d.BundleRoot, run, b); err != nil {
		return out, err
	}
	return out, nil
}

// WriteWhere says where the reports (and the bundle) went, in two lines at
// most: the files of dir in the order a reader opens them (coverage.json,
// report.html, junit.xml, ...), then the bundle's directory.
func (p *Published) WriteWhere(w io.Writer, dir string) {
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return writtenOrder(names[i]) < writtenOrder(names[j]) })
	fmt.Fprintf(w, "reports: %s\n", outcome.Printable(filepath.Join(dir, "{"+strings.Join(names, ",")+"}")))
	if p.Bundle != "" {
		fmt.Fprintf(w, "bundle: %s\n", outcome.Printable(p.Bundle))
	}
}

// writtenOrder lists the files a reader opens first first.
func writtenOrder(name string) string {
	for i, n := range []string{FileCoverage, FileHTML, FileJUnit, FileSARIF, FileSummary, FileReport, FileLog, FileRun} {
		if n == name {
			return fmt.Sprintf("%02d", i)
		}
	}
	return "99" + name
}
