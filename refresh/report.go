package refresh

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/report"
)

// Report turns a cycle into the report package's run model: one case per
// committed cassette. A drift that a refresh PR now carries fails its case
// with E_REAL_DRIFT, one the fake cannot follow with E_FAKE_DRIFT, an
// escalated adapter's with E_ESCALATED (all exit 1); a real side that could
// not be reached keeps the recorder's reason (exit 3); an adapter without
// credentials is skipped. proposals is where WriteProposals wrote the PR
// and issue texts ("" for none); they are attached to the cases.
func (r *Result) Report(cfg *cassettes.Config, tool report.Tool, proposals string) *report.Run {
	run := &report.Run{Tool: tool, Command: "refresh", Mode: "live_record", Suite: suite(cfg), ConfigPath: relTo(cfg.Dir, cfg.Path),
		Started: r.Started, Finished: r.Finished, Err: r.Err, ReplayCommand: "cassette verify"}
	if data, err := os.ReadFile(cfg.Path); err == nil {
		run.ConfigBytes = data
	}
	run.History = r.history(r.Threshold)
	for _, ar := range r.Adapters {
		for _, cr := range ar.Cases {
			path := relTo(cfg.Dir, cr.Old.Path)
			if data, err := os.ReadFile(cr.Old.Path); err == nil {
				run.Inventory = append(run.Inventory, report.NewInventoryItem(path, data))
			}
			c := report.Case{Adapter: cr.Old.Adapter, Scenario: cr.Old.Scenario, CassettePath: path, Status: cr.Status,
				Reason: cr.Reason, Message: cr.Message, NextStep: cr.NextStep, Drifts: cr.Drifts, Duration: cr.Duration}
			if cr.Status == report.StatusPass {
				c.Reason = ""
			}
			if proposals != "" && cr.Drifted() {
				if ar.PR != nil {
					c.Artifacts = append(c.Artifacts, report.Artifact{Name: "refresh PR", Kind: "text", Path: filepath.ToSlash(filepath.Join(proposals, ar.Name+".pr.md"))})
				}
				if ar.Issue != nil {
					c.Artifacts = append(c.Artifacts, report.Artifact{Name: "fake-drift issue", Kind: "text", Path: filepath.ToSlash(filepath.Join(proposals, ar.Name+".issue.md"))})
				}
			}
			run.Cases = append(run.Cases, c)
		}
	}
	return run
}

// WriteProposals writes each adapter's PR and issue (title, then body) to
// dir/<adapter>.pr.md and dir/<adapter>.issue.md: for a forge without an
// API they are the only place the PR exists.
func (r *Result) WriteProposals(dir string) error {
	for _, ar := range r.Adapters {
		if ar.PR != nil {
			if err := cassettes.WriteFileAtomic(filepath.Join(dir, ar.Name+".pr.md"), []byte(proposal(ar.PR.Title, ar.PR.Ref(), ar.PR.Body)), 0o644); err != nil {
				return err
			}
		}
		if ar.Issue != nil {
			if err := cassettes.WriteFileAtomic(filepath.Join(dir, ar.Name+".issue.md"), []byte(proposal(ar.Issue.Title, ar.Issue.Ref(), ar.Issue.Body)), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func proposal(title, ref, body string) string {
	return fmt.Sprintf("# %s\n\n<!-- %s -->\n\n%s", title, ref, body)
}

// Print writes the cycle's outcome for a terminal, one adapter per block.
func (r *Result) Print(w io.Writer) {
	mode := ""
	if r.DryRun {
		mode = " (dry run: nothing pushed or opened)"
	}
	fmt.Fprintf(w, "refresh %s%s\n", r.Date, mode)
	for _, ar := range r.Adapters {
		switch {
		case ar.Skipped != "":
			fmt.Fprintf(w, "  %s: skipped, %s\n", ar.Name, ar.Skipped)
			continue
		case ar.Err != nil:
			fmt.Fprintf(w, "  %s: error[%s] %s\n", ar.Name, ar.Err.Reason, firstLine(ar.Err.Error()))
			for _, p := range ar.Err.Problems {
				fmt.Fprintf(w, "      %s\n", p.String())
			}
		case ar.PR != nil:
			fmt.Fprintf(w, "  %s: drift; %s %q on %s\n", ar.Name, ar.PR.Ref(), ar.PR.Title, ar.Branch)
		default:
			fmt.Fprintf(w, "  %s: no drift\n", ar.Name)
		}
		for _, cr := range ar.Cases {
			if cr.Status != report.StatusPass {
				fmt.Fprintf(w, "    %s %s: %s\n", cr.Status, cr.Old.Scenario, cr.Message)
			}
		}
		if ar.Issue != nil {
			fmt.Fprintf(w, "    fake-drift issue: %s\n", ar.Issue.Ref())
		}
		if ar.Escalated {
			fmt.Fprintf(w, "    escalated to %s after %d drifting cycles\n", ownersText(ar.Owners), ar.Consecutive)
		}
	}
	if r.Err != nil {
		fmt.Fprintf(w, "error[%s] %s\n", r.Err.Reason, firstLine(r.Err.Error()))
		for _, p := range r.Err.Problems {
			fmt.Fprintf(w, "  %s\n", p.String())
		}
	}
}

func suite(cfg *cassettes.Config) string {
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return "cassette"
	}
	return filepath.Base(abs)
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}
