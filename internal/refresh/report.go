package refresh

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// Report turns a cycle into the report package's run model: one case per
// committed cassette. A drift that a refresh PR now carries fails its case
// with E_REAL_DRIFT, one the fake cannot follow with E_FAKE_DRIFT, an
// escalated adapter's with E_ESCALATED (all exit 1); a real side that could
// not be reached keeps the recorder's reason (exit 3); an adapter without
// credentials is skipped. proposals is where WriteProposals wrote the PR
// and issue texts ("" for none); they are attached to the cases.
//
// Paths are relative to the repository root, as in verify's reports. A
// case's replay command is the dry-run refresh of its adapter, which
// re-records against the real service as this run did (ReplayCommand).
func (r *Result) Report(cfg *cfgschema.Config, tool verdict.Tool, proposals string) *verdict.Run {
	base := verify.RepoRoot(cfg.Dir)
	relTo := func(_, p string) string { return verify.RelPath(base, p) }
	run := &verdict.Run{Tool: tool, Command: "refresh", Mode: "live_record", Suite: suite(cfg), ConfigPath: relTo(cfg.Dir, cfg.Path),
		Started: r.Started, Finished: r.Finished, Err: r.Err, ReplayCommand: r.ReplayCommand(), Seeds: verdict.FileOrder()}
	if data, err := os.ReadFile(cfg.Path); err == nil {
		run.ConfigBytes = data
	}
	run.History = r.history(r.Threshold)
	for _, ar := range r.Adapters {
		for _, cr := range ar.Cases {
			path := relTo(cfg.Dir, cr.Old.Path)
			if src := cr.Old.Source; src.SHA256 != "" { // the committed bytes the cycle compared with
				run.Inventory = append(run.Inventory, verdict.InventoryItem{Path: path, SHA256: src.SHA256, Bytes: src.Size})
			}
			c := verdict.Case{Adapter: cr.Old.Adapter, Scenario: cr.Old.Scenario, CassettePath: path, Status: cr.Status,
				Reason: cr.Reason, Message: cr.Message, NextStep: cr.NextStep, Drifts: cr.Drifts, Duration: cr.Duration}
			if cr.Status == verdict.StatusPass {
				c.Reason = ""
			}
			c.ReplayCommand = ar.ReplayCommand()
			live := cr.Live
			if live == nil && cr.Status != verdict.StatusSkipped {
				// A command is run once: no retry policy applies to it.
				l := recording.NewLiveRecord(recording.Telemetry{Attempts: 1, RetryBackoffMS: []int64{}})
				live = &l
			}
			c.Actions = liveActions(cr, live)
			if cr.Sides != nil { // what the reports show is what was compared
				c.Actions = cr.Sides.WithObserved(c.Actions)
				if cr.Status == verdict.StatusFail || cr.Status == verdict.StatusError {
					c.Recorded = cr.Sides.Recorded
				}
			}
			if l := live; l != nil {
				c.Live = &verdict.LiveRecord{ExecutionMode: l.ExecutionMode, ReplayBoundary: l.ReplayBoundary, TraceOrigin: l.TraceOrigin}
			}
			if proposals != "" && cr.Drifted() {
				if ar.PR != nil {
					c.Artifacts = append(c.Artifacts, verdict.Artifact{Name: "refresh PR", Kind: "text", Path: filepath.ToSlash(filepath.Join(proposals, ar.Name+".pr.md"))})
				}
				if ar.Issue != nil {
					c.Artifacts = append(c.Artifacts, verdict.Artifact{Name: "fake-drift issue", Kind: "text", Path: filepath.ToSlash(filepath.Join(proposals, ar.Name+".issue.md"))})
				}
			}
			run.Cases = append(run.Cases, c)
		}
	}
	return run
}

// liveActions are the calls a case's re-recording made against the real
// service: the new cassette's interactions (or command), or the calls made
// up to the one that failed; each carries its own retry telemetry.
func liveActions(cr *CaseResult, live *recording.LiveRecord) []verdict.Action {
	var acts []verdict.Action
	src := cr.New
	if src == nil {
		src = cr.Old
	}
	if src.Input != nil {
		a := verdict.Action{Kind: "proc", ID: "output", Argv: append([]string{src.Input.Command}, src.Input.Args...)}
		if cr.New != nil && cr.New.Output != nil {
			a.Stdout, a.Stderr, a.Exit = cr.New.Output.Stdout.Bytes(), cr.New.Output.Stderr.Bytes(), cr.New.Output.ExitCode
		}
		acts = append(acts, a)
	} else {
		for i, in := range src.Interactions {
			if cr.New == nil && i > 0 && (live == nil || i >= len(live.Calls)) {
				break // not made: the call before it failed
			}
			a := verdict.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: in.Request.Method, URL: in.Request.URL}
			if cr.New != nil {
				a.StatusCode, a.Body = in.Response.Code, in.Response.Body.Bytes()
			}
			acts = append(acts, a)
		}
	}
	if len(acts) == 0 || live == nil {
		return nil // not re-recorded (skipped)
	}
	if cr.New == nil && cr.Status == verdict.StatusError {
		last := &acts[len(acts)-1]
		last.Err, last.ErrKind = firstLine(cr.Message), string(cr.Reason)
	}
	for i := range acts {
		if i < len(live.Calls) {
			acts[i].Attempts, acts[i].RetryBackoffMS = live.Calls[i].Attempts, live.Calls[i].RetryBackoffMS
		}
	}
	return acts
}

// WriteProposals writes each adapter's PR and issue (title, then body) to
// dir/<adapter>.pr.md and dir/<adapter>.issue.md: for a forge without an
// API they are the only place the PR exists.
func (r *Result) WriteProposals(dir string) error {
	// An earlier cycle's texts are not this cycle's: none is left behind.
	keep := map[string]bool{}
	for _, ar := range r.Adapters {
		keep[ar.Name+".pr.md"], keep[ar.Name+".issue.md"] = ar.PR != nil, ar.Issue != nil
	}
	for _, pattern := range []string{"*.pr.md", "*.issue.md"} {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, p := range old {
			if !keep[filepath.Base(p)] {
				if err := os.Remove(p); err != nil {
					return err
				}
			}
		}
	}
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
			fmt.Fprintf(w, "  %s: error[%s]: %s\n", ar.Name, ar.Err.Reason, outcome.Printable(firstLine(ar.Err.Error())))
			for _, p := range ar.Err.Problems {
				fmt.Fprintf(w, "      %s\n", outcome.PrintableBlock(p.String(), "        "))
			}
		case ar.PR != nil:
			fmt.Fprintf(w, "  %s: drift; %s %q on %s\n", ar.Name, ar.PR.Ref(), ar.PR.Title, ar.Branch)
		case ar.failed() > 0:
			why := "the real side failed; never a drift"
			if ar.refused() {
				why = "refused or failed; never a drift"
			}
			fmt.Fprintf(w, "  %s: not refreshed: %d of %d cassette(s) could not be re-recorded (%s)\n", ar.Name, ar.failed(), len(ar.Cases), why)
		case ar.skipped() == len(ar.Cases) && len(ar.Cases) > 0:
			fmt.Fprintf(w, "  %s: not checked: every cassette (%d) was skipped, none re-recorded\n", ar.Name, len(ar.Cases))
		default:
			fmt.Fprintf(w, "  %s: no drift\n", ar.Name)
		}
		for _, cr := range ar.Cases {
			switch {
			case cr.Status == verdict.StatusPass:
			case cr.Reason != "":
				fmt.Fprintf(w, "    %s[%s] %s: %s\n", cr.Status, cr.Reason, outcome.Printable(cr.Old.Scenario), outcome.Printable(cr.Message))
			default:
				fmt.Fprintf(w, "    %s %s: %s\n", cr.Status, outcome.Printable(cr.Old.Scenario), outcome.Printable(cr.Message))
			}
		}
		if ar.Issue != nil {
			fmt.Fprintf(w, "    fake-drift issue: %s\n", ar.Issue.Ref())
		}
		if ar.Escalated {
			fmt.Fprintf(w, "    escalated to %s after %d drifting cycles\n", ownersText(ar.Owners), ar.Consecutive)
		}
	}
	// r.Err, the cycle's own error, is the command's ending's to print:
	// one error[…] line, on stderr, with its problems and the next step.
}

func suite(cfg *cfgschema.Config) string {
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return "cassette"
	}
	return filepath.Base(abs)
}

// failed counts the cases that could not be re-recorded.
// refused reports whether a case was not re-recorded because cassette.yaml
// or the cassette was refused (exit 2), not because the real side failed.
func (ar *AdapterResult) refused() bool {
	for _, cr := range ar.Cases {
		if cr.Status == verdict.StatusError && cr.New == nil && cr.Reason.Exit() == outcome.ExitUser {
			return true
		}
	}
	return false
}

// skipped counts the adapter's cassettes that were not re-recorded by
// choice (no credentials, mutating, a dry run's safe subset).
func (ar *AdapterResult) skipped() int {
	n := 0
	for _, cr := range ar.Cases {
		if cr.Status == verdict.StatusSkipped {
			n++
		}
	}
	return n
}

func (ar *AdapterResult) failed() int {
	n := 0
	for _, cr := range ar.Cases {
		if cr.Status == verdict.StatusError && cr.New == nil {
			n++
		}
	}
	return n
}
