package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// This file compares a stream by its content (Contract.Stream: content):
// an LLM's answer streamed as `Olá`,`!` or as `Olá!` is the same answer.
// In each record the declared text fields are taken out and appended to
// their channel (one per field and per the stream's own item indexes:
// choices[].index, a content block's index); what is left of a record is
// its skeleton, and consecutive records that carried text and whose
// skeletons are equal are one record. The skeletons are then compared as
// records (so the stop reason, the usage, a tool call's name and id are
// compared as they are) and each channel's whole text as one value (a
// tool call's arguments as JSON when both sides' parse).

// A StreamPreset names the text fields of a known stream and the members
// that count chunks (a sequence number) and so are no contract when chunk
// boundaries are not.
type StreamPreset struct {
	Text []string // JSONPaths of string fields whose text is concatenated
	Drop []string // JSONPaths of members left out of every record
}

// StreamPresets are the presets Contract.StreamText may name.
var StreamPresets = map[string]StreamPreset{
	// OpenAI Chat Completions: text, tool-call arguments and (DeepSeek,
	// vLLM) reasoning deltas; `obfuscation` is random padding per chunk.
	"openai.chat": {Text: []string{"$.choices[*].delta.content", "$.choices[*].delta.tool_calls[*].function.arguments",
		"$.choices[*].delta.reasoning_content"}, Drop: []string{"$.obfuscation"}},
	// OpenAI Responses: the `delta` string of response.output_text.delta,
	// response.function_call_arguments.delta, response.reasoning_summary_text.delta
	// and the like; sequence_number counts events.
	"openai.responses": {Text: []string{"$.delta"}, Drop: []string{"$.sequence_number", "$.obfuscation"}},
	// Anthropic Messages: text, tool input JSON and thinking deltas.
	"anthropic.messages": {Text: []string{"$.delta.text", "$.delta.partial_json", "$.delta.thinking"}},
}

// StreamPresetNames lists the presets, sorted.
func StreamPresetNames() []string {
	names := make([]string, 0, len(StreamPresets))
	for n := range StreamPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// streamFields resolves Contract.StreamText: preset names and JSONPaths
// (every preset when empty).
func streamFields(entries []string) (text, drop []*normalize.JSONPath, err error) {
	if len(entries) == 0 {
		entries = StreamPresetNames()
	}
	add := func(to *[]*normalize.JSONPath, paths []string) error {
		for _, s := range paths {
			p, err := normalize.ParseJSONPath(s)
			if err != nil {
				return err
			}
			*to = append(*to, p)
		}
		return nil
	}
	for _, e := range entries {
		if p, ok := StreamPresets[e]; ok {
			if err := add(&text, p.Text); err != nil {
				return nil, nil, err
			}
			if err := add(&drop, p.Drop); err != nil {
				return nil, nil, err
			}
			continue
		}
		if !strings.HasPrefix(e, "$") {
			return nil, nil, fmt.Errorf("stream_text: %q is neither a preset (%s) nor a JSONPath", e, strings.Join(StreamPresetNames(), ", "))
		}
		if err := add(&text, []string{e}); err != nil {
			return nil, nil, fmt.Errorf("stream_text: %w", err)
		}
	}
	return text, drop, nil
}

// channel is the concatenated text of one text field.
type channel struct {
	key    string // its JSONPath, array indexes being the stream's own
	text   strings.Builder
	offset int // of the first record that carried it
}

// contentView is a stream's records as content mode compares them: the
// skeletons, runs collapsed, and the channels in order of appearance.
func contentView(rs []record, text, drop []*normalize.JSONPath) ([]record, []*channel) {
	var out []record
	var chans []*channel
	byKey := map[string]*channel{}
	lastText := false
	for _, r := range rs {
		v, err := decodeJSON([]byte(r.json))
		if r.json == "" || err != nil {
			out, lastText = append(out, r), false
			continue
		}
		carried := false
		v = strip(nil, v, v, func(at []step, root any, s string) {
			key := channelKey(at, root)
			ch := byKey[key]
			if ch == nil {
				ch = &channel{key: key, offset: r.offset}
				byKey[key] = ch
				chans = append(chans, ch)
			}
			ch.text.WriteString(s)
			carried = true
		}, text, drop)
		skel := compact(v)
		n := record{text: r.text[:r.jsonAt] + skel, json: skel, jsonAt: r.jsonAt, offset: r.offset, index: r.index}
		if carried && lastText && out[len(out)-1].text == n.text {
			continue // the same chunk again, with more text
		}
		out, lastText = append(out, n), carried
	}
	return out, chans
}

// strip returns v without the members drop selects and the string members
// text selects, each of which it hands to take.
func strip(at []step, root, v any, take func([]step, any, string), text, drop []*normalize.JSONPath) any {
	matches := func(ps []*normalize.JSONPath, at []step) bool {
		steps := pathSteps(at)
		for _, p := range ps {
			if p.Matches(steps) {
				return true
			}
		}
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			here := append(clone(at), step{key: k, isKey: true})
			if matches(drop, here) {
				continue
			}
			if s, ok := x[k].(string); ok && matches(text, here) {
				take(here, root, s)
				continue
			}
			out[k] = strip(here, root, x[k], take, text, drop)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = strip(append(clone(at), step{index: i}), root, c, take, text, drop)
		}
		return out
	}
	return v
}

// identityMembers are the members by which a stream numbers its items.
var identityMembers = []string{"index", "output_index", "content_index", "summary_index", "item_id"}

// channelKey names the channel of a text at: its path with each array
// index replaced by the item's own `index` member (a second tool call is
// tool_calls[0] of its chunk, index 1 of the message), after the record's
// top-level identity members (a content block's index).
func channelKey(at []step, root any) string {
	var b strings.Builder
	if m, ok := root.(map[string]any); ok {
		for _, k := range identityMembers {
			if id, ok := m[k]; ok && typeName(id) != "object" && typeName(id) != "array" {
				fmt.Fprintf(&b, "[%s=%s]", k, compact(id))
			}
		}
	}
	steps := clone(at)
	v := root
	for i, s := range at {
		switch x := v.(type) {
		case map[string]any:
			v = x[s.key]
		case []any:
			if s.index < len(x) {
				v = x[s.index]
				if m, ok := v.(map[string]any); ok {
					if id, ok := m["index"]; ok && typeName(id) == "number" {
						fmt.Sscan(compact(id), &steps[i].index)
					}
				}
			}
		}
	}
	if b.Len() == 0 {
		return jsonPath(steps)
	}
	return jsonPath(steps) + " " + b.String()
}

// content compares two streams by content (see the top of this file).
func (c *comparer) content(field string, wr, gr []record, lineAt func(int) int) {
	ws, wch := contentView(wr, c.streamText, c.streamDrop)
	gs, gch := contentView(gr, c.streamText, c.streamDrop)
	c.stream(field, joinRecords(ws), joinRecords(gs), ws, gs, lineAt)
	gby := map[string]*channel{}
	for _, ch := range gch {
		gby[ch.key] = ch
	}
	for _, w := range wch {
		g := gby[w.key]
		delete(gby, w.key)
		wt := w.text.String()
		d := Drift{Class: ClassStream, Field: field, Path: w.key, Line: lineAt(w.offset)}
		switch {
		case g == nil && c.modelled():
			c.res.Model.Fields++
			c.res.Model.Unmodelled = append(c.res.Model.Unmodelled, Unmodelled{Field: field, Path: w.key, Line: d.Line, Want: snippet(wt), Fields: 1})
		case g == nil:
			d.Change, d.Want = Removed, wt
			c.add(d)
		case g.text.String() != wt && !sameJSON([]byte(wt), []byte(g.text.String())):
			d.Change = ValueChanged
			d.Want, d.Got = around(wt, g.text.String())
			c.add(d)
			c.countModelled()
		default:
			c.countModelled()
		}
	}
	for _, g := range gch {
		if gby[g.key] != nil {
			c.add(Drift{Class: ClassStream, Change: Added, Field: field, Path: g.key, Line: lineAt(0), Got: g.text.String()})
		}
	}
}

func (c *comparer) countModelled() {
	if c.res.Model != nil {
		c.res.Model.Fields++
		c.res.Model.Modelled++
	}
}

// joinRecords is the text of records, one a line, for a unified diff.
func joinRecords(rs []record) []byte {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.text + "\n\n")
	}
	return []byte(b.String())
}

// around cuts two long texts to where they first differ, with some
// context before, so that a drift shows the word that changed.
func around(w, g string) (string, string) {
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	const before = 40
	start := max(0, i-before)
	for start > 0 && start < len(w) && w[start]&0xC0 == 0x80 {
		start--
	}
	cut := func(s string) string {
		if start >= len(s) {
			return "…" + s[min(start, len(s)):]
		}
		if start == 0 {
			return s
		}
		return "…" + s[start:]
	}
	return cut(w), cut(g)
}
