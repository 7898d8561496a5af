package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The verify command fills a Run and hands it to Write; the exit code and
// the next step come from the same model.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "reports")
	defer os.RemoveAll(dir)
	start := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	run := &report.Run{
		Tool:    report.Tool{Name: "cassette", Version: "0.3.0"},
		Command: "verify",
		Suite:   "shop",
		Started: start, Finished: start.Add(time.Second),
		Cases: []verdict.Case{{
			Adapter: "github", Scenario: "list-pulls", CassettePath: "cassettes/github/list-pulls.yaml",
			Status: verdict.StatusFail,
			Drifts: []verdict.Drift{{Class: "status", Field: "interactions[0].response.code", Line: 14, Message: "404 differs from recorded 200"}},
		}},
	}
	if err := report.Write(dir, run, report.Options{Golden: true}); err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(dir, report.FileSummary)
	data, _ := os.ReadFile(path)
	s, _ := report.ParseSummary(path, data)
	fmt.Println(s.ExitCode, s.ReasonCode, run.Exit() == outcome.ExitFail)
	report.WriteNextStep(os.Stdout, run)
	// Output:
	// 1 E_CONTRACT_DRIFT true
	// next step: Run: cassette verify --case github/list-pulls
}
