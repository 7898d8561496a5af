package refresh

import (
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// HistoryCycles is how many cycles of drift history each adapter's state
// keeps: half a year of a weekly schedule.
const HistoryCycles = 26

// HistoryEntry is one refresh cycle of one adapter in its history.
type HistoryEntry struct {
	At          string `json:"at"`                  // the cycle's start, RFC 3339 UTC
	Drifts      int    `json:"drifts"`              // cassettes that drifted
	Failed      int    `json:"failed,omitempty"`    // cassettes the real side could not be reached for (exit 3): not compared
	Consecutive int    `json:"consecutive"`         // the escalation count after the cycle
	Escalated   bool   `json:"escalated,omitempty"` // the count had reached the threshold
	// Stamp is the cycle's start to the nanosecond: what tells a cycle
	// saved twice from another cycle started in the same second.
	Stamp string `json:"stamp,omitempty"`
}

// recordHistory appends the adapter's outcome of this cycle to its history
// in the state (a cycle whose state is saved twice is recorded once). An
// adapter that was skipped or could not be re-recorded at all adds nothing:
// its history says only what was compared. When some of its cassettes were
// compared and others could not be re-recorded (the real side failed for
// them), the entry counts those as failed, so that a cycle that compared
// part of the adapter never reads as a clean one.
func (c *cycle) recordHistory(ar *AdapterResult) {
	if ar.Skipped != "" {
		return
	}
	drifts, failed, compared := 0, 0, false
	for _, cr := range ar.Cases {
		if cr.New != nil || cr.Drifted() {
			compared = true
		}
		if cr.Drifted() {
			drifts++
		} else if cr.New == nil && cr.Reason != "" && cr.Reason.Exit() == outcome.ExitInfra {
			failed++
		}
	}
	if !compared {
		return
	}
	st := c.state.Adapter(ar.Name)
	e := HistoryEntry{At: c.now.UTC().Format(time.RFC3339), Drifts: drifts, Failed: failed, Consecutive: ar.Consecutive, Escalated: ar.Escalated,
		Stamp: c.now.UTC().Format(time.RFC3339Nano)}
	if n := len(st.History); n > 0 && st.History[n-1].Stamp == e.Stamp {
		st.History[n-1] = e
	} else {
		st.History = append(st.History, e)
	}
	if n := len(st.History); n > HistoryCycles {
		st.History = append([]HistoryEntry(nil), st.History[n-HistoryCycles:]...)
	}
}

// history is what the report shows of the state: each refreshed adapter's
// cycles, oldest first, and the threshold they escalate at.
func (r *Result) history(threshold int) []verdict.AdapterHistory {
	if r.State == nil {
		return nil
	}
	var out []verdict.AdapterHistory
	for _, ar := range r.Adapters {
		st := r.State.Adapters[ar.Name]
		if st == nil || len(st.History) == 0 {
			continue
		}
		h := verdict.AdapterHistory{Adapter: ar.Name, Threshold: threshold, Consecutive: st.Consecutive, Escalated: st.Escalated}
		for _, c := range st.History {
			h.Cycles = append(h.Cycles, verdict.HistoryCycle{At: c.At, Drifts: c.Drifts, Failed: c.Failed, Consecutive: c.Consecutive, Escalated: c.Escalated})
		}
		out = append(out, h)
	}
	return out
}
