package normalize

import "testing"

// TestScalarOutputIsText: an output that is one JSON scalar is text unless
// its type says JSON, so text rules see it. A short SHA of digits
// (`1612651`, or `27226e1`, a number with an exponent) was taken for a
// JSON number and escaped sha:short and every regex normalizer: the git
// example failed about one run in twenty, on whichever SHA git made.
func TestScalarOutputIsText(t *testing.T) {
	r := Builtins()
	if err := r.Define("git.abbrev", Definition{Regex: `(?m)^[0-9a-f]{7,40}\b`}); err != nil {
		t.Fatal(err)
	}
	p, err := r.Pipeline([]string{"git.abbrev"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"1612651\n", "27226e1\n", "9a58670\n"} {
		if got := string(p.Output(NewState(), []byte(out))); got != "<git.abbrev:1>\n" {
			t.Errorf("Output(%q) = %q, want <git.abbrev:1>", out, got)
		}
	}
	for _, c := range []struct {
		ct, body string
		want     Kind
	}{
		{"", "1612651\n", KindText},
		{"", "27226e1\n", KindText},
		{"", "true", KindText},
		{"", `"a string"`, KindText},
		{"", ` {"a":1}`, KindJSON},
		{"", "[1,2]\n", KindJSON},
		{"application/json", "42", KindJSON},
		{"application/vnd.github+json; charset=utf-8", `"x"`, KindJSON},
	} {
		if got := DetectKind(c.ct, []byte(c.body)); got != c.want {
			t.Errorf("DetectKind(%q, %q) = %v, want %v", c.ct, c.body, got, c.want)
		}
	}
}
