package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// The real LLM streams of charmbracelet/fantasy's provider tests (see
// ../../shared/testdata/README.md), read in place.
const (
	openAIChat      = "../../../shared/testdata/go-vcr-fantasy/TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml"
	anthropicTools  = "../../../shared/testdata/go-vcr-fantasy/TestAnthropicCommon/claude-sonnet-4/tool_streaming.yaml"
	openAIResponses = "../../../shared/testdata/go-vcr-fantasy/TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml"
)

func loadReal(t *testing.T, path string) *cassettes.Cassette {
	t.Helper()
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sseEvent is one event of a stream as the test re-chunks it.
type sseEvent struct {
	name  string
	data  map[string]any // nil: raw
	raw   string
	dirty bool // data changed: written from data, else raw as it was
}

func parseSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, ev := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(ev) == "" {
			continue
		}
		var e sseEvent
		for _, line := range strings.Split(ev, "\n") {
			if v, ok := strings.CutPrefix(line, "event:"); ok {
				e.name = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				e.raw = strings.TrimSpace(v)
				e.data = decodeMap(e.raw)
			}
		}
		out = append(out, e)
	}
	return out
}

func writeSSE(t *testing.T, evs []sseEvent) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range evs {
		if e.name != "" {
			b.WriteString("event: " + e.name + "\n")
		}
		data := e.raw
		if e.dirty {
			j, err := json.Marshal(e.data)
			if err != nil {
				t.Fatal(err)
			}
			data = string(j)
		}
		b.WriteString("data: " + data + "\n\n")
	}
	return b.Bytes()
}

// textAt returns the parent map and key of the string at path in v, if any.
func textAt(v any, path []any) (map[string]any, string, bool) {
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, "", false
			}
			if i == len(path)-1 {
				_, isStr := m[k].(string)
				return m, k, isStr
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil, "", false
			}
			v = a[k]
		}
	}
	return nil, "", false
}

// rechunk re-splits the text that runs of consecutive events carry at one
// of paths into chunks of n runes, as another server (or a fake) would
// stream the same answer.
func rechunk(t *testing.T, body []byte, n int, paths ...[]any) []byte {
	t.Helper()
	evs := parseSSE(t, body)
	var out []sseEvent
	for i := 0; i < len(evs); {
		path, text := []any(nil), ""
		for _, p := range paths {
			if m, k, ok := textAt(evs[i].data, p); ok && m[k] != "" {
				path = p
				break
			}
		}
		if path == nil {
			out = append(out, evs[i])
			i++
			continue
		}
		j := i
		for ; j < len(evs); j++ {
			m, k, ok := textAt(evs[j].data, path)
			if !ok || evs[j].name != evs[i].name || m[k] == "" {
				break
			}
			text += m[k].(string)
		}
		runes := []rune(text)
		for s := 0; s < len(runes); s += n {
			e := sseEvent{name: evs[i].name, data: deepCopy(t, evs[i].data), dirty: true}
			m, k, _ := textAt(e.data, path)
			m[k] = string(runes[s:min(s+n, len(runes))])
			out = append(out, e)
		}
		i = j
	}
	return writeSSE(t, out)
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return decodeMap(string(b))
}

// decodeMap decodes a JSON object keeping numbers as written (1.0 stays 1.0).
func decodeMap(s string) map[string]any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out map[string]any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// withStream is c with every response body passed through fn.
func withStream(c *cassettes.Cassette, fn func(i int, body []byte) []byte) *cassettes.Cassette {
	g := *c
	g.Interactions = append([]cassettes.Interaction(nil), c.Interactions...)
	for i := range g.Interactions {
		g.Interactions[i].Response.Body = cassettes.Body(fn(i, c.Interactions[i].Response.Body.Bytes()))
	}
	return &g
}

var (
	chatContent  = []any{"choices", 0, "delta", "content"}
	claudeText   = []any{"delta", "text"}
	claudeJSON   = []any{"delta", "partial_json"}
	responseText = []any{"delta"}
)

// TestContentStreamRechunked: a real stream re-chunked passes under
// stream: content with its preset (and fails record by record); a word, a
// tool argument, the stop reason or the usage that differ fail, located.
func TestContentStreamRechunked(t *testing.T) {
	tests := []struct {
		name, file, preset string
		n                  int // runes a chunk
		paths              [][]any
		// breaks edit the re-chunked stream; each must give one drift at path
		breaks []struct{ old, new, path string }
	}{
		{name: "openai chat", file: openAIChat, preset: "openai.chat", n: 2, paths: [][]any{chatContent},
			breaks: []struct{ old, new, path string }{
				{`"content":"á!"`, `"content":"á?"`, "$.choices[0].delta.content"},
				{`"finish_reason":"stop"`, `"finish_reason":"length"`, "$[3].choices[0].finish_reason"},
				{`"completion_tokens":2`, `"completion_tokens":3`, "$[4].usage.completion_tokens"},
			}},
		{name: "anthropic tool call", file: anthropicTools, preset: "anthropic.messages", n: 3, paths: [][]any{claudeText, claudeJSON},
			breaks: []struct{ old, new, path string }{
				{`"text":"ore"`, `"text":"ire"`, "$.delta.text [index=0]"},
				{`"partial_json":"tal"`, `"partial_json":"tel"`, "$.delta.partial_json [index=1]"},
				{`"stop_reason":"tool_use"`, `"stop_reason":"end_turn"`, "$[14].delta.stop_reason"},
				{`"output_tokens":67`, `"output_tokens":68`, "$[14].usage.output_tokens"},
			}},
		{name: "openai responses", file: openAIResponses, preset: "openai.responses", n: 5, paths: [][]any{responseText}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := loadReal(t, tc.file)
			re := withStream(want, func(_ int, b []byte) []byte { return rechunk(t, b, tc.n, tc.paths...) })
			if bytes.Equal(re.Interactions[0].Response.Body.Bytes(), want.Interactions[0].Response.Body.Bytes()) {
				t.Fatal("the re-chunked stream is the recorded one")
			}
			if res := compareModelled(t, want, re, Contract{}); res.Equal {
				t.Fatal("records: a re-chunked stream compared equal record by record")
			}
			content := Contract{Stream: Content, StreamText: []string{tc.preset}}
			if res := compareModelled(t, want, re, content); !res.Equal {
				var b bytes.Buffer
				_ = Render(&b, res, false)
				t.Fatalf("content: %s", b.String())
			}
			for _, br := range tc.breaks {
				body := string(re.Interactions[0].Response.Body.Bytes())
				if !strings.Contains(body, br.old) {
					t.Fatalf("%q not in the re-chunked stream:\n%s", br.old, body)
				}
				broken := withStream(re, func(i int, b []byte) []byte {
					if i == 0 {
						return []byte(strings.Replace(string(b), br.old, br.new, 1))
					}
					return b
				})
				res := compareModelled(t, want, broken, content)
				if len(res.Drifts) != 1 || res.Drifts[0].Path != br.path || res.Drifts[0].Line == 0 {
					t.Fatalf("%s → %s: drifts %+v, want one at %s", br.old, br.new, res.Drifts, br.path)
				}
			}
		})
	}
}

// TestStreamRecordsAligned: when the record counts differ, the records
// are aligned and the missing and extra ones named, not all of them.
func TestStreamRecordsAligned(t *testing.T) {
	want := loadReal(t, openAIChat)
	evs := parseSSE(t, want.Interactions[0].Response.Body.Bytes())
	// the fake leaves out the usage chunk and sends one more text chunk
	extra := sseEvent{data: deepCopy(t, evs[2].data), dirty: true}
	extra.data["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["content"] = " Tudo bem?"
	got := append(append(append([]sseEvent(nil), evs[:3]...), extra), evs[3], evs[5])
	fake := withStream(want, func(int, []byte) []byte { return writeSSE(t, got) })
	res := compareModelled(t, want, fake, Contract{})
	var kinds []string
	for _, d := range res.Drifts {
		kinds = append(kinds, d.Change+" "+d.Path)
	}
	// key order aside (the records are re-encoded), the fake's stream is
	// the real one with one record added and one removed
	if strings.Join(kinds, ", ") != "added $[3], removed $[4]" {
		t.Fatalf("drifts: %s", strings.Join(kinds, ", "))
	}
}

// TestStreamWithoutContentType: a fake's SSE body without Content-Type is
// framed and normalized as the recorded stream; the missing type is its
// own header drift and the only one.
func TestStreamWithoutContentType(t *testing.T) {
	want := loadReal(t, openAIChat)
	want.Normalizers = []string{"json.path:$.id"}
	fake := withStream(want, func(_ int, b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("chatcmpl-DuLdCoxuLDs8HRMlOuz0Bi4wgi4XJ"), []byte("chatcmpl-fake"))
	})
	fake.Interactions[0].Response.Headers = nil
	p, err := Pipeline(want, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := CompareContract(want, fake, p, Contract{Headers: []string{}})
	if len(res.Drifts) != 1 || res.Drifts[0].Class != ClassHeaders || res.Drifts[0].Path != "Content-Type" || res.Drifts[0].Change != Removed {
		t.Fatalf("drifts = %+v, want only the missing Content-Type", res.Drifts)
	}
}

// TestPresetNamesAgree: the presets validate accepts are the ones diff has.
func TestPresetNamesAgree(t *testing.T) {
	if got, want := strings.Join(StreamPresetNames(), " "), strings.Join(cfgschema.StreamPresetNames, " "); got != want {
		t.Fatalf("diff has presets %s, cassettes validates %s", got, want)
	}
}

// TestContentBadStreamText: a stream_text entry that is neither a preset
// nor a JSONPath is the comparison's error, not a drift.
func TestContentBadStreamText(t *testing.T) {
	want := loadReal(t, openAIChat)
	p, err := Pipeline(want, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CompareContract(want, want, p, Contract{Stream: Content, StreamText: []string{"openai.chats"}}); err == nil || !strings.Contains(err.Error(), "openai.chat") {
		t.Fatalf("err = %v", err)
	}
}
