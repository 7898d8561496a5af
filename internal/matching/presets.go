package matching

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/match"
)

// Presets: named rules for the request bodies of LLM APIs, which the
// official SDKs change from one version to the next without changing what
// is asked. A recording made by one SDK version must keep replaying to the
// next, so each preset leaves out of the body the fields that SDKs add or
// echo back on their own (a block's `caller`, a tool result's `is_error`:
// anthropic-sdk-go added both), and compares the rest as JSON (key order,
// white space and a trailing newline do not matter). What the program
// asks (model, messages, tools, limits, a user id) still has to match:
// a preset never leaves out a field a program sets.
//
// A preset is the base of the rules that name it (Rules.Preset, `preset:`
// in a `match:` of cassette.yaml, `cassette proxy --match-preset`); the
// JSONPaths and query parameters the rules add are left out too.

// presets are the named rules, by name: a function, not a variable, so
// that no caller can change them. Each path is one an SDK was seen adding
// (examples/llm-stream/sdk replays recordings of older SDK versions to the
// current ones); a preset without paths compares JSON, and is named so
// that a project can say which API it talks to and get the paths found
// later.
func presets() map[string]match.Rules {
	return map[string]match.Rules{
		// Anthropic's Messages API (POST /v1/messages). anthropic-sdk-go
		// sends back what a response block carried (Message.ToParam) and
		// spells out defaults; a recording made by an older version lacks
		// both.
		"anthropic": {Body: match.BodyJSON, IgnoreJSON: []string{
			"$.messages[*].content[*].caller",   // tool_use: who called the tool, echoed by ToParam
			"$.messages[*].content[*].is_error", // tool_result: false, the default, sent by NewToolResultBlock
		}},
		// OpenAI's chat completions and Responses (also Azure OpenAI's v1
		// API, and gateways that speak them): openai-go v3 sends what older
		// versions recorded; JSON comparison.
		"openai": {Body: match.BodyJSON},
		// Google's Gemini API (generateContent, streamGenerateContent):
		// google.golang.org/genai sends what older versions recorded; JSON
		// comparison (the SDK's body ends in a newline).
		"gemini": {Body: match.BodyJSON},
	}
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets()))
	for n := range presets() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Preset returns the rules of a named preset.
func Preset(name string) (match.Rules, bool) {
	r, ok := presets()[name]
	return r, ok
}

// withPreset lays r over the preset it names: the preset's JSONPaths and
// query parameters are left out too, its body mode holds unless r sets
// one other than the default.
func withPreset(r match.Rules) (match.Rules, error) {
	if r.Preset == "" {
		return r, nil
	}
	p, ok := Preset(r.Preset)
	if !ok {
		return r, fmt.Errorf("unknown match preset %q (known: %s)", r.Preset, strings.Join(PresetNames(), ", "))
	}
	r.IgnoreJSON = append(append([]string(nil), p.IgnoreJSON...), r.IgnoreJSON...)
	r.IgnoreParams = append(append([]string(nil), p.IgnoreParams...), r.IgnoreParams...)
	if r.Body == "" || r.Body == match.BodyRaw {
		r.Body = p.Body
	}
	return r, nil
}
