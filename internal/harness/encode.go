package harness

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// appendPass appends r's line as encoding/json writes it (without HTML
// escapes, with its newline) when r is a pass of the usual shape: no
// reason, message, drift, explanation or text, an id and a file of
// printable ASCII with no quote or backslash (written as they are). It
// reports whether it did.
func appendPass(b []byte, r *Result) ([]byte, bool) {
	if r.Type != "result" || r.Status != verdict.StatusPass || r.Reason != "" || r.Message != "" || r.Blocking ||
		r.Drifts == nil || len(r.Drifts) > 0 || r.Explain != "" || r.Text != "" || !plainText(r.ID) || !plainText(r.File) {
		return b, false
	}
	b = append(b, `{"type":"result","id":"`...)
	b = append(b, r.ID...)
	b = append(b, `","file":"`...)
	b = append(b, r.File...)
	b = append(b, `","line":`...)
	b = strconv.AppendInt(b, int64(r.Line), 10)
	b = append(b, `,"status":"pass","blocking":false,"quarantined":`...)
	b = strconv.AppendBool(b, r.Quarantined)
	return append(b, ",\"drifts\":[]}\n"...), true
}

// plainText reports whether encoding/json writes s as it is between its
// quotes: printable ASCII, no quote or backslash.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendListing appends l's line as encoding/json writes it (without HTML
// escapes, with its newline): a CLI case without a quarantine entry, the
// usual one, by hand, and any other case, and a string that needs
// escapes, by encoding/json (FuzzListingAgreesWithEncoding). A listing
// of 10,000 cases was half of what writing it cost, its redaction the
// other half.
func appendListing(b []byte, l *Listing, scratch *bytes.Buffer) []byte {
	b = append(b, '{')
	if l.Type != "" {
		b = appendField(b, `"type":`, l.Type, scratch)
		b = append(b, ',')
	}
	b = append(b, `"protocol":`...)
	b = strconv.AppendInt(b, int64(l.Protocol), 10)
	b = appendField(b, `,"config":`, l.Config, scratch)
	b = appendField(b, `,"dir":`, l.Dir, scratch)
	b = append(b, `,"cases":`...)
	if l.Cases == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range l.Cases {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCase(b, &l.Cases[i], scratch)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

func appendCase(b []byte, c *Case, scratch *bytes.Buffer) []byte {
	if c.Quarantine != nil || c.HTTP != nil || c.CLI == nil {
		return appendJSON(b, c, scratch)
	}
	b = appendField(b, `{"id":`, c.ID, scratch)
	b = appendField(b, `,"adapter":`, c.Adapter, scratch)
	b = appendField(b, `,"scenario":`, c.Scenario, scratch)
	b = appendField(b, `,"kind":`, c.Kind, scratch)
	b = appendField(b, `,"file":`, c.File, scratch)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(c.Line), 10)
	in := c.CLI
	b = appendField(b, `,"cli":{"command":`, in.Command, scratch)
	b = append(b, `,"args":`...)
	b = appendStrings(b, in.Args, scratch)
	if in.Stdin != nil {
		b = appendField(b, `,"stdin":`, *in.Stdin, scratch)
	}
	if in.StdinBase64 != "" {
		b = appendField(b, `,"stdin_base64":`, in.StdinBase64, scratch)
	}
	b = append(b, `,"env":`...)
	b = appendStrings(b, in.Env, scratch)
	b = appendField(b, `,"dir":`, in.Dir, scratch)
	return append(b, "}}"...)
}

// appendField appends a member's key (written with its punctuation, as
// `,"dir":`) and its string value.
func appendField(b []byte, key, v string, scratch *bytes.Buffer) []byte {
	return appendString(append(b, key...), v, scratch)
}

func appendStrings(b []byte, ss []string, scratch *bytes.Buffer) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s, scratch)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string: as it is between quotes when
// plainText, else as encoding/json escapes it.
func appendString(b []byte, s string, scratch *bytes.Buffer) []byte {
	if plainText(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendJSON(b, s, scratch)
}

// appendJSON appends v as encoding/json writes it without HTML escapes.
func appendJSON(b []byte, v any, scratch *bytes.Buffer) []byte {
	scratch.Reset()
	enc := json.NewEncoder(scratch)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and the protocol's structs always encode
	}
	return append(b, bytes.TrimSuffix(scratch.Bytes(), []byte("\n"))...)
}
