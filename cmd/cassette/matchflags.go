package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/recording"
)

// bindMatchFlags binds the replay matching flags of `cassette proxy`, the
// same settings as `match:` in cassette.yaml, to m.
func bindMatchFlags(f *pflag.FlagSet, m *recording.MatchFlags) {
	f.StringArrayVar(&m.URLs, "match-url", nil, "URL pattern, glob:PATTERN or regex:EXPR; requests matching the same pattern as a recorded one match its URL (repeatable)")
	f.StringSliceVar(&m.Params, "ignore-query", nil, "query parameter left out of matching, by name (repeatable)")
	f.StringArrayVar(&m.Ignore, "ignore-json", nil, "JSONPath left out of a JSON request body, e.g. $.nonce (repeatable)")
	f.StringArrayVar(&m.Only, "match-json", nil, "JSONPath compared in a JSON request body; only these are (repeatable)")
	f.StringVar(&m.Preset, "match-preset", "", "named match rules for an LLM API's request bodies ("+strings.Join(matching.PresetNames(), ", ")+"): leave out what a newer SDK adds, compare the rest as JSON; the other matching flags are laid over it")
	f.StringVar(&m.Sequence, "sequence", "", "once (a request repeated more often than recorded misses) or replayable (the last response is served again); --replayable is --sequence replayable")
}
