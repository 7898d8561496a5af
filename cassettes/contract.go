package cassettes

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

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
	streamRecords   = "records"
	streamContent   = "content"
)

// StreamPresetNames are the stream presets stream_text may name (package
// diff holds what each one takes).
var StreamPresetNames = []string{"anthropic.messages", "openai.chat", "openai.responses"}

// ContractFor is the contract of cassette c of adapter a: the adapter's,
// then its contracts: entry for c's scenario, then c's own keys, each
// setting what it names. A nil adapter gives c's own.
func ContractFor(a *Adapter, c *Cassette) Contract {
	var k Contract
	over := func(o Contract) {
		if o.Compare != "" {
			k.Compare = o.Compare
		}
		if o.Required != nil {
			k.Required = o.Required
		}
		if o.Stream != "" {
			k.Stream = o.Stream
		}
		if o.StreamText != nil {
			k.StreamText = o.StreamText
		}
	}
	if a != nil {
		over(Contract{Compare: a.Compare, Required: a.Required, Stream: a.Stream, StreamText: a.StreamText})
		if c != nil {
			over(a.Contracts[c.Scenario])
		}
	}
	if c != nil {
		over(Contract{Compare: c.Compare, Required: c.Required, Stream: c.Stream, StreamText: c.StreamText})
	}
	if k.Compare == "" {
		k.Compare = CompareExact
	}
	if k.Stream == "" {
		k.Stream = streamRecords
	}
	return k
}

// headerName is an HTTP field name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// validRequired reports whether a required: entry is status, a JSONPath
// or a header name.
func validRequired(s string) bool {
	if strings.HasPrefix(s, "$") {
		_, err := normalize.ParseJSONPath(s)
		return err == nil
	}
	return s == "status" || headerName.MatchString(s)
}

// validStreamText reports whether a stream_text: entry is a preset or a
// JSONPath.
func validStreamText(s string) bool {
	if strings.HasPrefix(s, "$") {
		_, err := normalize.ParseJSONPath(s)
		return err == nil
	}
	return slices.Contains(StreamPresetNames, s)
}
