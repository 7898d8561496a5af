//go:build unix

package coverage

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/internal/report"
)

// TestReadModelledFIFO: a FIFO named summary.json is refused naming the
// file, and a FIFO named run.json beside a real summary.json leaves the
// run's command unknown (the figure is read); reading either never
// blocks (#34).
func TestReadModelledFIFO(t *testing.T) {
	dir, p, now := modelledProject(t)
	refusesSummary(t, filepath.Join(dir, "fifo"), p, now, func(p string) error { return syscall.Mkfifo(p, 0o644) })

	fifoRun := filepath.Join(dir, "fifo-run")
	if err := report.Write(fifoRun, &report.Run{Tool: report.Tool{Name: "cassette"}, Command: "verify", Suite: "s"}, report.Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(fifoRun, report.FileRun))
	if err := syscall.Mkfifo(filepath.Join(fifoRun, report.FileRun), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadModelled(fifoRun, p.Config, now); err != nil || !m.Found || m.Command != "" {
		t.Errorf("a FIFO run.json: %+v %v, want the summary's figure and no command", m, err)
	}
}
