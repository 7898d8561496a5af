package outcome

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"github", "gh", "gitlab"}
	for _, tc := range []struct{ s, want string }{
		{"githbu", "github"},  // a transposition
		{"GitHub", "github"},  // case is ignored
		{"gitlabb", "gitlab"}, // one letter too many
		{"gitlub", "github"},  // a tie: the first in sort order
		{"petstore", ""},      // nothing near
		{"g", "gh"},           // the nearest, short names allowed 2 edits
	} {
		if got := Closest(tc.s, names); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := Suggest("githbu", names); got != "did you mean `github`?" {
		t.Errorf("Suggest = %q", got)
	}
	if got := Suggest("petstore", names); got != "" {
		t.Errorf("Suggest of nothing near = %q", got)
	}
}
