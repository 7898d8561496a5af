package normalize

import (
	"strconv"
	"testing"
)

// TestNumbersSurviveGrowth: the numbers a State gave stay the values'
// through the growth of its table, and new values get the next ones.
func TestNumbersSurviveGrowth(t *testing.T) {
	st := NewState()
	for i := range 5000 {
		if n := st.Number("id", strconv.Itoa(i*7919)); n != i+1 {
			t.Fatalf("value %d numbered %d, want %d", i, n, i+1)
		}
	}
	for i := range 5000 {
		if n := st.Number("id", strconv.Itoa(i*7919)); n != i+1 {
			t.Fatalf("value %d renumbered %d, want %d", i, n, i+1)
		}
	}
	if n := st.Number("id", "new"); n != 5001 {
		t.Errorf("a new value after 5000: %d", n)
	}
	if n := st.Number("other", "0"); n != 1 {
		t.Errorf("another kind starts at %d", n)
	}
	if got := st.Values()["id"][4321]; got != strconv.Itoa(4320*7919) {
		t.Errorf("Values()[id][4321] = %q", got)
	}
}
