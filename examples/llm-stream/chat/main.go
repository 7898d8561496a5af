// Command chat is the tool under test of the llm-stream example: a small
// command-line client of an LLM's streaming Messages API (Anthropic's
// shape) that prints the answer as stream-json — one JSON object per line,
// each printed as soon as its event arrives — the way LLM CLIs do for
// programs that read them.
//
//	ANTHROPIC_API_KEY=... chat [--model M] [--max-tokens N] [--system TEXT] [--temperature T] PROMPT
//
// ANTHROPIC_BASE_URL changes the API's address (default
// https://api.anthropic.com).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// line is one stream-json line.
type line struct {
	Type       string `json:"type"`
	ID         string `json:"id,omitempty"`
	Model      string `json:"model,omitempty"`
	Index      *int   `json:"index,omitempty"`
	Text       string `json:"text,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	Usage      *usage `json:"usage,omitempty"`
	Status     int    `json:"status,omitempty"`
	Message    string `json:"message,omitempty"`
	TS         string `json:"ts"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// options are the command line's.
type options struct {
	model, system, prompt string
	maxTokens             int
	temperature           float64
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.model, "model", "claude-sonnet-4-20250514", "model")
	fs.IntVar(&o.maxTokens, "max-tokens", 4000, "longest answer, in tokens")
	fs.StringVar(&o.system, "system", "", "system prompt")
	fs.Float64Var(&o.temperature, "temperature", -1, "sampling temperature (the API's default when not given)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: chat [--model M] [--max-tokens N] [--system TEXT] [--temperature T] PROMPT")
		return 2
	}
	o.prompt = fs.Arg(0)
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		fmt.Fprintln(stderr, "chat: ANTHROPIC_API_KEY is not set")
		return 2
	}
	req, err := o.request(key)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 2
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 3
	}
	defer resp.Body.Close()
	enc := json.NewEncoder(stdout)
	emit := func(l line) { l.TS = time.Now().UTC().Format(time.RFC3339Nano); _ = enc.Encode(l) }
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &e)
		emit(line{Type: "error", Status: resp.StatusCode, Message: e.Error.Message})
		return 1
	}
	return printStream(resp.Body, emit, stderr)
}

// request is the streamed Messages request of o: the prompt (and the
// system prompt) as text blocks.
func (o options) request(key string) (*http.Request, error) {
	base := strings.TrimSuffix(os.Getenv("ANTHROPIC_BASE_URL"), "/")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	params := map[string]any{"model": o.model, "max_tokens": o.maxTokens, "stream": true,
		"messages": []map[string]any{{"role": "user", "content": []block{{"text", o.prompt}}}}}
	if o.system != "" {
		params["system"] = []block{{"text", o.system}}
	}
	if o.temperature >= 0 {
		params["temperature"] = o.temperature
	}
	body, _ := json.Marshal(params)
	req, err := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("content-type", "application/json")
	req.Header.Set("accept", "text/event-stream")
	return req, nil
}

// printStream prints a line per event of the answer as it arrives.
func printStream(body io.Reader, emit func(line), stderr io.Writer) int {
	var id string
	var text strings.Builder
	var u usage
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() { // server-sent events: only the data lines matter here
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID    string `json:"id"`
				Model string `json:"model"`
				Usage usage  `json:"usage"`
			} `json:"message"`
			Delta struct {
				Type       string `json:"type"`
				Text       string `json:"text"`
				StopReason string `json:"stop_reason"`
			} `json:"delta"`
			Usage usage                    `json:"usage"`
			Error struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &ev); err != nil {
			fmt.Fprintln(stderr, "chat: an event that is not JSON:", err)
			return 1
		}
		switch ev.Type {
		case "message_start":
			id, u = ev.Message.ID, ev.Message.Usage
			emit(line{Type: "start", ID: id, Model: ev.Message.Model})
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" {
				i := ev.Index
				text.WriteString(ev.Delta.Text)
				emit(line{Type: "text", Index: &i, Text: ev.Delta.Text})
			}
		case "message_delta":
			u.OutputTokens = ev.Usage.OutputTokens
			emit(line{Type: "result", ID: id, StopReason: ev.Delta.StopReason, Text: text.String(), Usage: &u})
		case "error":
			emit(line{Type: "error", Message: ev.Error.Message})
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "chat: the stream broke off:", err)
		return 3
	}
	return 0
}
