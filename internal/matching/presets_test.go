package matching

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/match"
)

// TestPresets: every preset compiles; anthropic's leaves out what
// anthropic-sdk-go's second tool-loop turn adds to an older recording,
// compares the rest as JSON and still misses on what the program asks; the
// rules that name a preset add to it; an unknown name is an error that
// lists the known ones.
func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		if err := Check(match.Rules{Preset: name}); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	const u = "https://api.anthropic.com/v1/messages"
	older := `{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"weather","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"40 C"}]}]}],"stream":true}`
	newer := `{"stream":true,"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"weather","input":{},"caller":{"type":"direct"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"40 C"}],"is_error":false}]}],"metadata":{"user_id":"u"}}` + "\n"
	cassette := func() []*cassettes.Cassette {
		return []*cassettes.Cassette{{Interactions: []cassettes.Interaction{it("POST", u, older, "ok")}}}
	}
	for _, tc := range []struct {
		name  string
		rules match.Rules
		body  string
		match bool
	}{
		{"without a preset", match.Rules{Body: match.BodyJSON}, strings.Replace(newer, `,"metadata":{"user_id":"u"}`, "", 1), false},
		{"anthropic leaves out caller and is_error", match.Rules{Preset: "anthropic"}, strings.Replace(newer, `,"metadata":{"user_id":"u"}`, "", 1), true},
		{"what the program asks still counts", match.Rules{Preset: "anthropic"}, newer, false},
		{"the rules add to the preset", match.Rules{Preset: "anthropic", IgnoreJSON: []string{"$.metadata"}}, newer, true},
		{"--match-body raw does not undo the preset", match.Rules{Preset: "anthropic", Body: match.BodyRaw, IgnoreJSON: []string{"$.metadata"}}, newer, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newIndex(t, cassette(), tc.rules)
			got, miss := x.find(Request{"POST", u, nil, []byte(tc.body)})
			if (got != nil) != tc.match {
				t.Errorf("matched = %v, want %v\n%v", got != nil, tc.match, miss)
			}
		})
	}
	err := Check(match.Rules{Preset: "antropic"})
	if err == nil || !strings.Contains(err.Error(), `unknown match preset "antropic"`) || !strings.Contains(err.Error(), "anthropic, gemini, openai") {
		t.Errorf("an unknown preset: %v", err)
	}
	if r := FromConfig(cfgschema.Match{Preset: "anthropic"}); r.Preset != "anthropic" {
		t.Errorf("FromConfig dropped the preset: %+v", r)
	}
}
