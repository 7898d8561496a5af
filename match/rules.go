package match

// BodyMode says how request bodies take part in matching.
type BodyMode string

// The body modes.
const (
	// BodyRaw matches the exact bytes (the default).
	BodyRaw BodyMode = "raw"
	// BodyJSON matches the RFC 8785 canonical form of a JSON body, so key
	// order and white space do not matter; a body that is not JSON is
	// matched raw.
	BodyJSON BodyMode = "json"
	// BodyIgnore leaves bodies out of matching.
	BodyIgnore BodyMode = "ignore"
)

// Rules say which parts of a request must equal the recorded one for
// replay to serve it: the `match:` of an adapter or a scenario in
// cassette.yaml, the matching flags of `cassette proxy`, the option
// recorder.WithMatch. The zero value matches method, scheme and host,
// path, query (in any parameter order) and the raw body.
type Rules struct {
	IgnoreMethod bool     // match any method
	IgnoreHost   bool     // match any scheme and host (cassettes recorded against another base URL)
	IgnoreQuery  bool     // leave the query string out
	Headers      []string // these request headers must also be equal
	Body         BodyMode // raw (default), json or ignore
	// Replayable serves the last recorded response again once the n
	// responses recorded for n identical requests are used up. A cassette's
	// own `replayable:` key, when present, wins.
	Replayable bool
	// URLs are URL patterns: "glob:PATTERN" (path.Match syntax: `*` does
	// not cross '/'), "regex:EXPR" (Go RE2, anchored) or a bare PATTERN (a
	// glob), each matched against the whole normalized URL. A request and
	// a recorded interaction whose URLs match the same pattern match on the
	// URL, whatever else it holds.
	URLs []string
	// IgnoreParams are query parameters left out by name (a nonce, a
	// timestamp, a cache buster).
	IgnoreParams []string
	// IgnoreJSON are JSONPaths (RFC 9535, as normalizers take them) left
	// out of a JSON body; OnlyJSON, when set, are the only ones compared.
	// Either makes a JSON body match as JSON.
	IgnoreJSON, OnlyJSON []string
	// Preset names rules these are laid over ("anthropic", "openai",
	// "gemini"): what to leave out of an LLM API's request bodies
	// so that a newer SDK still matches a recording an older one made.
	Preset string
}
