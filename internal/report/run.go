package report

import (
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// Run is a run as the renderer reads it: the run model of package verdict
// (what the doors that judge fill), under the renderer's methods. A door's
// *verdict.Run converts to a *Run and back ((*Run)(run)): the two are one
// value, nothing is copied.
type Run verdict.Run

// The parts of the run model, under the names the renderer has always
// given them.
type (
	Tool             = verdict.Tool
	InventoryItem    = verdict.InventoryItem
	Seeds            = verdict.Seeds
	Counts           = verdict.Counts
	Coverage         = verdict.Coverage
	CoverageAdapter  = verdict.CoverageAdapter
	CoverageModelled = verdict.CoverageModelled
	CoverageShape    = verdict.CoverageShape
	CoverageStale    = verdict.CoverageStale
	AdapterHistory   = verdict.AdapterHistory
	HistoryCycle     = verdict.HistoryCycle
	File             = verdict.File
	GitInfo          = verdict.GitInfo
)

// The verdicts of an adapter's coverage (verdict.CoveragePass, ...).
const (
	CoveragePass       = verdict.CoveragePass
	CoverageFail       = verdict.CoverageFail
	CoverageUnrecorded = verdict.CoverageUnrecorded
	CoverageUnobserved = verdict.CoverageUnobserved
)

// NewInventoryItem describes the file at path with the given content
// (verdict.NewInventoryItem).
func NewInventoryItem(path string, data []byte) InventoryItem {
	return verdict.NewInventoryItem(path, data)
}

// model is the run as the run model: the same value.
func (r *Run) model() *verdict.Run { return (*verdict.Run)(r) }

// Reason is verdict.Run.Reason.
func (r *Run) Reason() outcome.Reason { return r.model().Reason() }

// Exit is verdict.Run.Exit.
func (r *Run) Exit() outcome.Exit { return r.model().Exit() }

// Message is verdict.Run.Message.
func (r *Run) Message() string { return r.model().Message() }

// NextStepCommand is verdict.Run.NextStepCommand.
func (r *Run) NextStepCommand() string { return r.model().NextStepCommand() }

// Counts is verdict.Run.Counts.
func (r *Run) Counts() Counts { return r.model().Counts() }

// Duration is verdict.Run.Duration.
func (r *Run) Duration() time.Duration { return r.model().Duration() }

func (r *Run) now() time.Time                    { return r.model().Now() }
func (r *Run) sortedCases() []*verdict.Case      { return r.model().SortedCases() }
func (r *Run) reportCases() []*verdict.Case      { return r.model().ReportCases() }
func (r *Run) suiteReplay() string               { return r.model().SuiteReplay() }
func (r *Run) caseReplay(c *verdict.Case) string { return r.model().CaseReplay(c) }
func (r *Run) toolName() string                  { return r.model().ToolName() }
func (r *Run) command() string                   { return r.model().CommandName() }

// FileOrder is verdict.FileOrder: the order seed of every run cassette
// makes.
func FileOrder() Seeds { return verdict.FileOrder() }
