//go:build unix

package verify

import (
	"os"
	"testing"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// TestStopInBackgroundWaitsWhenNoSlotIsFree: with every background slot
// taken, a fake is stopped as Stop stops it (reaped when the call
// returns); with a slot, the call returns at once and wait returns once
// the fake is reaped and its slot free again.
func TestStopInBackgroundWaitsWhenNoSlotIsFree(t *testing.T) {
	start := func() *Process {
		r, w, err := outputPipe()
		if err != nil {
			t.Fatal(err)
		}
		c, err := procgroup.NewCommand([]string{"sleep", "300"}).Start("", []string{"PATH=" + os.Getenv("PATH")}, w)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = procgroup.Kill(c.Pid) })
		return &Process{child: c, exited: c.Done(), out: newFakeOutput(r, nil), tr: newFakeTransport()}
	}
	full := newBackgroundStops(0)
	p := start()
	p.stopInBackground(full)
	select {
	case <-p.exited:
	default:
		t.Error("no slot free: stopInBackground returned before the fake was reaped")
	}
	stops := newBackgroundStops(1)
	p = start()
	p.stopInBackground(stops)
	stops.wait()
	select {
	case <-p.exited:
	default:
		t.Error("wait returned before the fake stopped in the background was reaped")
	}
	if len(stops.slots) != 0 {
		t.Errorf("%d slots still held after wait", len(stops.slots))
	}
}
