package cfgschema

// Contract is what verify holds a fake to (package diff compares by it):
// compare exact (the default: the normalized forms byte for byte) or
// modelled (what the fake leaves out is listed, not drift), the fields the
// fake must model even so, and how streams are compared (record by
// record, or by content: the text of consecutive records concatenated).
type Contract struct {
	// Compare is how verify compares the fake's answer with the cassette:
	// exact (the default: the normalized forms byte for byte) or modelled
	// (what the fake leaves out is listed, not a drift; what it gives must
	// be what reality gave): docs/modelled.md.
	Compare string `yaml:"compare,omitempty" validate:"omitempty,oneof=exact modelled"`
	// Required are what the fake must model even in modelled mode:
	// JSONPaths ($.id, $.items[*].name, $..sha), status, and header names.
	Required []string `yaml:"required,omitempty" validate:"dive,requiredentry"`
	// Stream is how a JSON-lines or SSE stream is compared: records (the
	// default: record by record) or content (the text of consecutive
	// records concatenated, so a fake may split it differently).
	Stream string `yaml:"stream,omitempty" validate:"omitempty,oneof=records content"`
	// StreamText names the text fields that stream: content concatenates:
	// stream presets (anthropic.messages, openai.chat, openai.responses) or
	// JSONPaths of string fields; none: every preset applies.
	StreamText []string `yaml:"stream_text,omitempty" validate:"dive,streamtext"`
}

// The comparison modes and stream modes a contract names.
const (
	CompareExact    = "exact"
	CompareModelled = "modelled"
	StreamRecords   = "records"
	StreamContent   = "content"
)

// StreamPresetNames are the stream presets stream_text may name (package
// diff holds what each one takes).
var StreamPresetNames = []string{"anthropic.messages", "openai.chat", "openai.responses"}
