package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicTurn is what a program sees of one streamed Messages call.
type anthropicTurn struct {
	Events     []string // event types, in order
	StopReason string
	Text       string   // the text blocks, joined
	Thinking   string   // the thinking blocks, joined
	Tools      []string // name(input) of each tool_use block
	message    anthropic.Message
}

func (a anthropicTurn) String() string {
	return fmt.Sprintf("%d events %v, stop %q, tools %v, text %q, thinking %d bytes", len(a.Events), a.Events, a.StopReason, a.Tools, a.Text, len(a.Thinking))
}

// streamAnthropic makes one streamed call and accumulates it as the SDK's
// documentation does (Message.Accumulate).
func streamAnthropic(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams) anthropicTurn {
	t.Helper()
	stream := client.Messages.NewStreaming(context.Background(), params)
	var turn anthropicTurn
	for stream.Next() {
		ev := stream.Current()
		turn.Events = append(turn.Events, ev.Type)
		if err := turn.message.Accumulate(ev); err != nil {
			t.Fatalf("accumulating %s: %v", ev.Type, err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("the stream failed: %v", err)
	}
	turn.StopReason = string(turn.message.StopReason)
	for _, b := range turn.message.Content {
		switch b := b.AsAny().(type) {
		case anthropic.TextBlock:
			turn.Text += b.Text
		case anthropic.ThinkingBlock:
			turn.Thinking += b.Thinking
		case anthropic.ToolUseBlock:
			turn.Tools = append(turn.Tools, b.Name+"("+string(b.Input)+")")
		}
	}
	return turn
}

func anthropicClient(base string, hc *http.Client) anthropic.Client {
	opts := []option.RequestOption{option.WithAPIKey("sk-ant-replayed"), option.WithBaseURL(base)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return anthropic.NewClient(opts...)
}

// sameTurns compares what the SDK made of the replayed stream with what it
// makes of the recorded body.
func sameTurns[T fmt.Stringer](t *testing.T, replayed, recorded []T) {
	t.Helper()
	if len(replayed) != len(recorded) {
		t.Fatalf("%d turns replayed, %d recorded", len(replayed), len(recorded))
	}
	for i := range replayed {
		if replayed[i].String() != recorded[i].String() {
			t.Errorf("turn %d differs:\nreplayed: %s\nrecorded: %s", i+1, replayed[i], recorded[i])
		}
	}
}

const claude = "claude-sonnet-4-20250514"

func weatherTool() anthropic.ToolUnionParam {
	return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
		Name:        "weather",
		Description: anthropic.String("Get weather information for a location"),
		InputSchema: anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"location": map[string]any{"description": "the city", "type": "string"}},
			Required:   []string{"location"},
		},
	}}
}

// TestAnthropicSimpleStream: one streamed answer, text only.
func TestAnthropicSimpleStream(t *testing.T) {
	path := fantasy(t, "TestAnthropicCommon/claude-sonnet-4/simple_streaming.yaml")
	params := anthropic.MessageNewParams{Model: claude, MaxTokens: 4000,
		System:   []anthropic.TextBlockParam{{Text: "You are a helpful assistant"}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hi in Portuguese"))}}
	px := startReplay(t, path, "https://api.anthropic.com", "--match-body", "json")
	replayed := streamAnthropic(t, anthropicClient(px.URL, nil), params)
	recorded := streamAnthropic(t, anthropicClient("http://recorded.invalid", direct(recording(t, path))), params)
	sameTurns(t, []anthropicTurn{replayed}, []anthropicTurn{recorded})
	// The recording holds 18 events; the SDK hands out all but the ping.
	if len(replayed.Events) != 17 || replayed.StopReason != "end_turn" || !strings.HasPrefix(replayed.Text, "Olá! (That's \"hi\" in Portuguese)") {
		t.Errorf("the recording holds 17 events besides a ping, ending the turn with Olá…; the SDK read %s", replayed)
	}
	replayedAll(t, px, 1)

	// With --latency the go-vcr file's stream (no event times, only its
	// duration) is spread over the 2.1 s it took, which the proxy says; the
	// SDK reads the same events.
	px = startReplay(t, path, "https://api.anthropic.com", "--match-body", "json", "--latency")
	paced := streamAnthropic(t, anthropicClient(px.URL, nil), params)
	sameTurns(t, []anthropicTurn{paced}, []anthropicTurn{recorded})
	if out := px.stop(); !strings.Contains(out, "its 18 events are spread evenly over the recorded 2.095870458s") {
		t.Errorf("the proxy does not say it spread the events:\n%s", out)
	}
}

// anthropicToolLoop runs the two turns of a tool loop the way the SDK's
// documentation writes one: the answer goes back as the assistant's turn
// (Message.ToParam), the tool's result as the user's (NewToolResultBlock).
func anthropicToolLoop(t *testing.T, client anthropic.Client, first anthropic.MessageNewParams, result string) []anthropicTurn {
	t.Helper()
	turn1 := streamAnthropic(t, client, first)
	var toolUse anthropic.ToolUseBlock
	for _, b := range turn1.message.Content {
		if b.Type == "tool_use" {
			toolUse = b.AsToolUse()
		}
	}
	if toolUse.ID == "" {
		t.Fatalf("the first turn asked for no tool: %s", turn1)
	}
	second := first
	second.Messages = append(append([]anthropic.MessageParam(nil), first.Messages...), turn1.message.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(toolUse.ID, result, false)))
	return []anthropicTurn{turn1, streamAnthropic(t, client, second)}
}

// TestAnthropicToolLoopWithPreset is issue #27's "done when": a two-turn
// tool loop recorded by an older SDK (fantasy's, v0.12.2) replays to the
// current anthropic-sdk-go, whose second turn adds `caller` to the
// tool_use block it sends back and `is_error` to the tool result. Without
// the preset the second turn misses (once: the miss says not to retry),
// and the miss names the recorded second turn with those two keys.
func TestAnthropicToolLoopWithPreset(t *testing.T) {
	path := fantasy(t, "TestAnthropicCommon/claude-sonnet-4/tool_streaming.yaml")
	first := anthropic.MessageNewParams{Model: claude, MaxTokens: 4000,
		System:     []anthropic.TextBlockParam{{Text: "You are a helpful assistant"}},
		Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Florence,Italy?"))},
		ToolChoice: anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(false)}},
		Tools:      []anthropic.ToolUnionParam{weatherTool()}}

	t.Run("without the preset the second turn misses, once", func(t *testing.T) {
		px := startReplay(t, path, "https://api.anthropic.com", "--match-body", "json")
		client := anthropicClient(px.URL, nil)
		streamAnthropic(t, client, first)
		second := first
		second.Messages = append(append([]anthropic.MessageParam(nil), first.Messages...),
			anthropic.MessageParam{Role: "assistant", Content: []anthropic.ContentBlockParamUnion{
				anthropic.NewTextBlock("I'll get the weather information for Florence, Italy for you."),
				{OfToolUse: &anthropic.ToolUseBlockParam{ID: "toolu_01N2eM4V43kGCDkq2Lw7ChWQ", Name: "weather", Input: map[string]any{"location": "Florence,Italy"},
					Caller: anthropic.ToolUseBlockParamCallerUnion{OfDirect: &anthropic.DirectCallerParam{}}}}}},
			anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01N2eM4V43kGCDkq2Lw7ChWQ", "40 C", false)))
		stream := client.Messages.NewStreaming(context.Background(), second)
		for stream.Next() {
		}
		var apiErr *anthropic.Error
		if err := stream.Err(); !errors.As(err, &apiErr) || apiErr.StatusCode != 599 {
			t.Fatalf("the second turn should miss with 599: %v", err)
		}
		out := px.stop()
		for _, want := range []string{"1 replayed, 1 replay miss(es)", "(interactions[1])", `"caller": {`, `"is_error": false`} {
			if !strings.Contains(out, want) {
				t.Errorf("the proxy's log lacks %q (one miss, not retried, naming the recorded second turn):\n%s", want, out)
			}
		}
		if strings.Contains(out, "(interactions[0])") {
			t.Errorf("the miss names the first turn, which was served already:\n%s", out)
		}
	})

	t.Run("with --match-preset anthropic it replays", func(t *testing.T) {
		px := startReplay(t, path, "https://api.anthropic.com", "--match-preset", "anthropic")
		replayed := anthropicToolLoop(t, anthropicClient(px.URL, nil), first, "40 C")
		recorded := anthropicToolLoop(t, anthropicClient("http://recorded.invalid", direct(recording(t, path))), first, "40 C")
		sameTurns(t, replayed, recorded)
		if len(replayed[0].Tools) != 1 || replayed[0].Tools[0] != `weather({"location": "Florence,Italy"})` || replayed[0].StopReason != "tool_use" ||
			replayed[1].StopReason != "end_turn" || !strings.Contains(replayed[1].Text, "40°C (104°F)") {
			t.Errorf("the recording asks for weather(Florence,Italy), then answers with 40°C (104°F); the SDK read:\n%s\n%s", replayed[0], replayed[1])
		}
		replayedAll(t, px, 2)
	})
}

// TestAnthropicThinkingToolLoop: extended thinking, whose signed thinking
// block goes back in the second turn.
func TestAnthropicThinkingToolLoop(t *testing.T) {
	path := fantasy(t, "TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml")
	first := anthropic.MessageNewParams{Model: claude, MaxTokens: 4096,
		System:     []anthropic.TextBlockParam{{Text: "You are a helpful assistant"}},
		Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Florence, Italy?"))},
		Thinking:   anthropic.ThinkingConfigParamOfEnabled(4000),
		ToolChoice: anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(false)}},
		Tools:      []anthropic.ToolUnionParam{weatherTool()}}
	px := startReplay(t, path, "https://api.anthropic.com", "--match-preset", "anthropic")
	replayed := anthropicToolLoop(t, anthropicClient(px.URL, nil), first, "40 C")
	recorded := anthropicToolLoop(t, anthropicClient("http://recorded.invalid", direct(recording(t, path))), first, "40 C")
	sameTurns(t, replayed, recorded)
	if replayed[0].Thinking == "" || replayed[0].StopReason != "tool_use" || replayed[1].StopReason != "end_turn" || replayed[1].Text == "" {
		t.Errorf("the recording thinks, asks for a tool, then answers; the SDK read:\n%s\n%s", replayed[0], replayed[1])
	}
	replayedAll(t, px, 2)
}
