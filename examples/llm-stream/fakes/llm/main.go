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

// messageID is a fresh id in the API's form.
func messageID() string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := []byte("msg_01")
	for range 22 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b = append(b, alphabet[n.Int64()])
	}
	return string(b)
}

// request is the part of a Messages request the fake reads.
type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
}

func serve() int {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"this fake streams one message"}}`)
			return
		}
		a, ok := answerFor(req.Messages[len(req.Messages)-1].Content)
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"this fake knows no answer to that"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		send := func(name string, data any) {
			b, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
			w.(http.Flusher).Flush()
		}
		send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": messageID(), "type": "message",
			"role": "assistant", "model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": a.inputTokens, "output_tokens": 1}}})
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}})
		send("ping", map[string]string{"type": "ping"})
		for _, d := range a.deltas {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": d}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": map[string]int{"output_tokens": a.outputTokens}})
		send("message_stop", map[string]string{"type": "message_stop"})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return map[bool]int{true: 0, false: 3}[http.Serve(ln, mux) == nil]
}

// chat prints what the chat CLI prints for a prompt.
func chat(args []string, stdout, stderr io.Writer) int {
	model := "claude-sonnet-4-5"
	for len(args) > 1 && strings.HasPrefix(args[0], "--") {
		if args[0] == "--model" {
			model = args[1]
		}
		args = args[2:]
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: chat [--model M] [--max-tokens N] PROMPT")
		return 2
	}
	a, ok := answerFor(args[0])
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
	id := messageID()
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
