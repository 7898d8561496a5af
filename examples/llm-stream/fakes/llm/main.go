// Command llm is the fake of the llm-stream example, in two roles:
//
//	llm serve        a fake of the streaming Messages API on 127.0.0.1:$PORT
//	llm chat PROMPT  a fake of the chat CLI: its stream-json lines, no API
//
// Both answer from the same table of prompts (answers.go).
package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(serve())
	}
	if len(os.Args) > 1 && os.Args[1] == "chat" {
		os.Exit(chat(os.Args[2:], os.Stdout, os.Stderr))
	}
	fmt.Fprintln(os.Stderr, "usage: llm serve | llm chat PROMPT")
	os.Exit(2)
}

// newID is a fresh id in the API's form (msg_…, toolu_…).
func newID(prefix string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := []byte(prefix + "_01")
	for range 22 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b = append(b, alphabet[n.Int64()])
	}
	return string(b)
}

// request is the part of a Messages request the fake reads: the first
// user text is the prompt, and a tool_result anywhere means the tool the
// model asked for has answered.
type request struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Content json.RawMessage `json:"content"` // a string, or blocks
	} `json:"messages"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (r request) prompt() (prompt string, toolAnswered bool) {
	for i, m := range r.Messages {
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			_ = json.Unmarshal(m.Content, &s)
			blocks = []block{{Type: "text", Text: s}}
		}
		for _, b := range blocks {
			switch {
			case i == 0 && b.Type == "text" && prompt == "":
				prompt = b.Text
			case b.Type == "tool_result":
				toolAnswered = true
			}
		}
	}
	return prompt, toolAnswered
}

func serve() int {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /v1/messages", messages)
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return map[bool]int{true: 0, false: 3}[http.Serve(ln, mux) == nil]
}

func badRequest(w http.ResponseWriter, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": message}})
	w.Write(b)
}

// messages streams the answer in the events of the Messages API, as the
// real one does: the message, a text block (and a tool_use block when the
// model asks for a tool), the stop reason and usage, the end.
func messages(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || !req.Stream {
		badRequest(w, "this fake streams one message")
		return
	}
	a, ok := answerFor(req.prompt())
	if !ok {
		badRequest(w, "this fake knows no answer to that")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	send := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		w.(http.Flusher).Flush()
	}
	type obj = map[string]any
	send("message_start", obj{"type": "message_start", "message": obj{"id": newID("msg"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": a.inputTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
			"cache_creation": obj{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}, "output_tokens": a.startTokens,
			"service_tier": "standard", "inference_geo": "not_available"}}})
	send("content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": obj{"type": "text", "text": ""}})
	send("ping", obj{"type": "ping"})
	for _, d := range a.deltas {
		send("content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": obj{"type": "text_delta", "text": d}})
	}
	send("content_block_stop", obj{"type": "content_block_stop", "index": 0})
	if t := a.tool; t != nil {
		send("content_block_start", obj{"type": "content_block_start", "index": 1, "content_block": obj{"type": "tool_use", "id": newID("toolu"),
			"name": t.name, "input": obj{}, "caller": obj{"type": "direct"}}})
		for _, part := range t.input {
			send("content_block_delta", obj{"type": "content_block_delta", "index": 1, "delta": obj{"type": "input_json_delta", "partial_json": part}})
		}
		send("content_block_stop", obj{"type": "content_block_stop", "index": 1})
	}
	send("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": a.stopReason(), "stop_sequence": nil},
		"usage": obj{"input_tokens": a.inputTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": a.outputTokens}})
	send("message_stop", obj{"type": "message_stop"})
}

// chat prints what the chat CLI prints for a prompt.
func chat(args []string, stdout, stderr io.Writer) int {
	model := model
	for len(args) > 1 && strings.HasPrefix(args[0], "--") {
		if args[0] == "--model" {
			model = args[1]
		}
		args = args[2:]
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: chat [--model M] [--max-tokens N] [--system TEXT] [--temperature T] PROMPT")
		return 2
	}
	a, ok := answerFor(args[0], false)
	if !ok {
		fmt.Fprintln(stderr, "fake chat: no answer to that prompt")
		return 3
	}
	enc := json.NewEncoder(stdout)
	ts := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	type usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	}
	id := newID("msg")
	_ = enc.Encode(struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Model string `json:"model"`
		TS    string `json:"ts"`
	}{"start", id, model, ts()})
	for _, d := range a.deltas {
		_ = enc.Encode(struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
			Text  string `json:"text"`
			TS    string `json:"ts"`
		}{"text", 0, d, ts()})
	}
	_ = enc.Encode(struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
		Usage      usage  `json:"usage"`
		TS         string `json:"ts"`
	}{"result", id, strings.Join(a.deltas, ""), "end_turn", usage{a.inputTokens, a.outputTokens}, ts()})
	return 0
}
