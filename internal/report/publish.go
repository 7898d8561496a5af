package report

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
