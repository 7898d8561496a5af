package learn

import (
	"testing"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// TestClassesMatchTheirBuiltins: a class that stands for a text-pattern
// built-in classifies by the built-in's own expression (an empty one, as a
// renamed built-in would give, matches everything), and the built-in
// rewrites what the class matches.
func TestClassesMatchTheirBuiltins(t *testing.T) {
	samples := map[string]string{"iso8601": "2026-12-01T22:07:12Z", "rfc1123": "Tue, 01 Dec 2026 22:07:12 GMT",
		"ansic": "Tue Dec  1 22:07:12 2026", "uuid": "123e4567-e89b-12d3-a456-426614174000", "port": "127.0.0.1:43595"}
	for _, c := range classes {
		if c.mask().String() == "" {
			t.Errorf("class %s: empty expression", c.Name)
		}
		s, ok := samples[c.Name]
		if !ok {
			continue
		}
		if normalize.BuiltinExpr(c.Builtin) == "" {
			t.Errorf("class %s: built-in %s has no expression", c.Name, c.Builtin)
		}
		if !c.mask().MatchString(s) {
			t.Errorf("class %s does not match %q", c.Name, s)
		}
		p, err := normalize.Builtins().Pipeline([]string{c.Builtin}, normalize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Text(normalize.NewState(), s); got == s {
			t.Errorf("built-in %s leaves %q as it was", c.Builtin, s)
		}
	}
}
