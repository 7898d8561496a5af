package learn

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionNextStep: a learned change not yet applied is applied next,
// with the same scenarios; an applied one, or none, is verified.
func TestSessionNextStep(t *testing.T) {
	p := project(t)
	adapter := p.Config.Order[0]
	s := Session{Project: p, Adapter: adapter, Scenarios: []string{"a", "b"}}
	changed := &Outcome{Old: []byte("x"), New: []byte("y")}
	if got := s.NextStep(changed, false); !strings.HasPrefix(got, "cassette learn --adapter "+adapter+" --scenario a --scenario b --apply") {
		t.Errorf("unapplied change: next %q", got)
	}
	verify := "cassette verify " + filepath.Join(p.Config.CassetteDir(), adapter)
	if got := s.NextStep(changed, true); !strings.HasPrefix(got, "cassette verify") || !strings.Contains(got, filepath.Join(p.Config.CassetteDir(), adapter)) {
		t.Errorf("applied change: next %q; want %s", got, verify)
	}
	if got := s.NextStep(&Outcome{Old: []byte("x"), New: []byte("x")}, false); !strings.HasPrefix(got, "cassette verify") {
		t.Errorf("nothing learned: next %q; want %s", got, verify)
	}
}
