package cassettes

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// ContractFor is the contract of cassette c of adapter a: the adapter's,
// then its contracts: entry for c's scenario, then c's own keys, each
// setting what it names. A nil adapter gives c's own.
func ContractFor(a *cfgschema.Adapter, c *Cassette) cfgschema.Contract {
	var k cfgschema.Contract
	over := func(o cfgschema.Contract) {
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
		over(cfgschema.Contract{Compare: a.Compare, Required: a.Required, Stream: a.Stream, StreamText: a.StreamText})
		if c != nil {
			over(a.Contracts[c.Scenario])
		}
	}
	if c != nil {
		over(cfgschema.Contract{Compare: c.Compare, Required: c.Required, Stream: c.Stream, StreamText: c.StreamText})
	}
	if k.Compare == "" {
		k.Compare = cfgschema.CompareExact
	}
	if k.Stream == "" {
		k.Stream = cfgschema.StreamRecords
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
	return slices.Contains(cfgschema.StreamPresetNames, s)
}
