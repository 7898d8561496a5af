package cassettes

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestContractConfig: compare, required, stream and stream_text are read
// per adapter, per scenario (contracts:) and per cassette, each level
// setting what it names; wrong values are errors at their line.
func TestContractConfig(t *testing.T) {
	const cfgYAML = `version: 1
adapters:
  docker:
    kind: http
    real: {base_url: "http://engine"}
    fake: {base_url: "http://127.0.0.1:1"}
    compare: modelled
    required: [status, "$.Id", Api-Version]
    stream: content
    stream_text: [openai.chat]
    coverage: {min_modelled: 60}
    contracts:
      ping: {compare: exact}
      events: {stream: records, required: []}
`
	cfg, err := ParseConfig("cassette.yaml", []byte(cfgYAML), ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Adapters["docker"]
	if *a.Coverage.MinModelled != 60 {
		t.Errorf("min_modelled = %v", *a.Coverage.MinModelled)
	}
	for _, tc := range []struct {
		scenario, compare, stream string
		required                  int
	}{
		{"inspect", cfgschema.CompareModelled, cfgschema.StreamContent, 3},
		{"ping", cfgschema.CompareExact, cfgschema.StreamContent, 3},
		{"events", cfgschema.CompareModelled, cfgschema.StreamRecords, 0},
	} {
		k := ContractFor(a, &Cassette{Scenario: tc.scenario})
		if k.Compare != tc.compare || k.Stream != tc.stream || len(k.Required) != tc.required || k.StreamText[0] != "openai.chat" {
			t.Errorf("%s: contract %+v", tc.scenario, k)
		}
	}
	if k := ContractFor(a, &Cassette{Scenario: "ping", Compare: cfgschema.CompareModelled}); k.Compare != cfgschema.CompareModelled {
		t.Errorf("a cassette's own compare: does not win: %+v", k)
	}
	if k := ContractFor(nil, &Cassette{}); k.Compare != cfgschema.CompareExact || k.Stream != cfgschema.StreamRecords {
		t.Errorf("defaults = %+v", k)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"mode typo", "compare: modelled", "compare: modeled", "cassette.yaml:7: adapters[docker].compare: `modeled` is not allowed"},
		{"bad JSONPath", `"$.Id"`, `"$.Id[?x]"`, "adapters[docker].required[1]: `$.Id[?x]` is not something a fake can be required to model"},
		{"bad header", `Api-Version]`, `"Api Version"]`, "adapters[docker].required[2]"},
		{"unknown preset", "[openai.chat]", "[openai.chats]", "did you mean `openai.chat`?"},
		{"stream mode", "stream: content", "stream: text", "adapters[docker].stream: `text` is not allowed"},
		{"scenario override", "ping: {compare: exact}", "ping: {compare: loose}", "adapters[docker].contracts[ping].compare"},
		{"min_modelled", "min_modelled: 60", "min_modelled: 160", "min_modelled"},
	} {
		src := strings.Replace(cfgYAML, tc.from, tc.to, 1)
		if src == cfgYAML {
			t.Fatalf("%s: %q not in the fixture", tc.name, tc.from)
		}
		_, err := ParseConfig("cassette.yaml", []byte(src), ConfigOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestContractInCassette: a cassette's own compare:, required: and
// stream_text: are read and validated at their line.
func TestContractInCassette(t *testing.T) {
	const src = `cassette: 1
adapter: gh
scenario: repo
kind: cli
compare: modelled
required: [$.id]
input: {command: gh}
output: {stdout: "{}", stderr: "", exit_code: 0}
`
	c, err := Parse("cassettes/gh/repo.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k := ContractFor(nil, c); k.Compare != cfgschema.CompareModelled || k.Required[0] != "$.id" {
		t.Fatalf("contract = %+v", k)
	}
	_, err = Parse("cassettes/gh/repo.yaml", []byte(strings.Replace(src, "compare: modelled", "compare: loose", 1)), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "cassettes/gh/repo.yaml:5: compare: `loose` is not allowed") {
		t.Fatalf("err = %v", err)
	}
	_, err = Parse("cassettes/gh/repo.yaml", []byte(strings.Replace(src, "input: {command: gh}", "stream_text: [openai.chats]\ninput: {command: gh}", 1)), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "stream_text[0]") {
		t.Fatalf("err = %v", err)
	}
}
