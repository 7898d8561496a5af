package cassettes

import (
	"math/rand/v2"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// lineOnly is a set of kinds that knows only "line".
type lineOnly struct{ cfgschema.Kinds }

func (lineOnly) Known(k cfgschema.Kind) bool { return k == "line" }
func (lineOnly) Names() []string             { return []string{"line"} }

// TestPlainlyValidAgreesWithTheValidator: whatever rules plainlyValid
// passes, the validator finds nothing in (random values of every field,
// each from a set of good and bad ones); and it passes the plain cases,
// or it would not be what saves the validator's time.
func TestPlainlyValidAgreesWithTheValidator(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// The first value of each set is a good one, and is picked half the
	// time, so that most rules are near the plain case.
	pick := func(xs ...string) string {
		if r.IntN(2) == 0 {
			return xs[0]
		}
		return xs[r.IntN(len(xs))]
	}
	list := func(xs ...string) []string {
		var out []string
		for range r.IntN(2) + r.IntN(2) {
			out = append(out, pick(xs...))
		}
		if out == nil && r.IntN(2) == 0 {
			out = []string{}
		}
		return out
	}
	cfg := &cfgschema.Config{Adapters: map[string]*cfgschema.Adapter{"echo": {}, "git": {}}, Normalizers: map[string]cfgschema.NormalizerDef{"mine": {}}}
	passed, plain := 0, 0
	for range 20000 {
		rules := cassetteRules{Cassette: pick3(r, 1, 0, 2, -1), Version: pick3(r, 2, 0, 1), Adapter: pick("echo", "git", "other", "", "Echo", "_x", "a/b"),
			Scenario: pick("s", "case-00001", "", "a/b", "a//b", "..", "x y"), Kind: cfgschema.Kind(pick("cli", "cli", "http", "", "line")),
			Normalizers: list("mine", "builtin", "nope", ""), Compare: pick("", "exact", "modelled", "fuzzy"), Required: list("$.id", "status", "", "$["),
			Stream: pick("", "records", "content", "x"), StreamText: list("openai.chat", "$.text", "", "nope")}
		if r.IntN(8) > 0 {
			rules.Input = &inputRules{Command: pick("echo", ""), Env: list("HOME", "A_1", "1A", "", "a-b")}
		}
		if r.IntN(8) > 0 {
			rules.Output = &Output{}
		}
		switch r.IntN(3) {
		case 0:
			rules.Interactions = []interactionRule{}
		case 1:
			rules.Interactions = make([]interactionRule, 1)
		}
		regs := registries{normalizers: names{"builtin"}}
		if r.IntN(2) == 0 {
			regs.cfg = cfg
		}
		if r.IntN(5) == 0 {
			regs.kinds = lineOnly{}
		}
		want := structProblems("c.yaml", rules, regs, func(string) int { return 0 })
		if len(want) == 0 {
			plain++
		}
		if !rules.plainlyValid(regs) {
			continue
		}
		passed++
		if len(want) > 0 {
			t.Fatalf("plainlyValid passes %+v (input %+v, registries %+v); the validator finds %v", rules, rules.Input, regs, want)
		}
	}
	if passed == 0 || plain == 0 {
		t.Fatalf("of 20,000 rules, %d valid, %d passed plainly: the test does not reach the plain case", plain, passed)
	}
	t.Logf("of 20,000 rules, %d valid, %d of them passed plainly", plain, passed)
}

func pick3(r *rand.Rand, xs ...int) int {
	if r.IntN(2) == 0 {
		return xs[0]
	}
	return xs[r.IntN(len(xs))]
}
