package sdk_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

func openaiClient(base string, hc *http.Client) openai.Client {
	opts := []option.RequestOption{option.WithAPIKey("sk-replayed"), option.WithBaseURL(base)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return openai.NewClient(opts...)
}

// chatTurn is what a program sees of one streamed chat completion.
type chatTurn struct {
	Chunks       int
	FinishReason string
	Text         string
	Tools        []string // name(arguments) of each tool call
	Usage        int64    // total tokens (the last chunk's, stream_options.include_usage)
	message      openai.ChatCompletionMessage
}

func (c chatTurn) String() string {
	return fmt.Sprintf("%d chunks, finish %q, tools %v, usage %d, text %q", c.Chunks, c.FinishReason, c.Tools, c.Usage, c.Text)
}

// streamChat makes one streamed call and accumulates it as the SDK's
// documentation does (ChatCompletionAccumulator).
func streamChat(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams) chatTurn {
	t.Helper()
	stream := client.Chat.Completions.NewStreaming(context.Background(), params)
	var acc openai.ChatCompletionAccumulator
	var turn chatTurn
	for stream.Next() {
		turn.Chunks++
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("chunk %d does not add up", turn.Chunks)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("the stream failed: %v", err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	turn.message = acc.Choices[0].Message
	turn.FinishReason, turn.Text, turn.Usage = acc.Choices[0].FinishReason, turn.message.Content, acc.Usage.TotalTokens
	for _, tc := range turn.message.ToolCalls {
		turn.Tools = append(turn.Tools, tc.Function.Name+"("+tc.Function.Arguments+")")
	}
	return turn
}

// TestOpenAIChatStreams: the same SDK call against three services that
// speak OpenAI's chat completions (OpenAI, and Vercel's AI gateway), one
// streamed answer each.
func TestOpenAIChatStreams(t *testing.T) {
	for _, tc := range []struct {
		name, path, upstream, base, model string
		limit                             func(*openai.ChatCompletionNewParams)
		text                              string
	}{
		{"openai gpt-4o", "TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml", "https://api.openai.com", "/v1", "gpt-4o",
			func(p *openai.ChatCompletionNewParams) { p.MaxTokens = openai.Int(4000) }, "Olá"},
		{"vercel gpt-5", "TestVercelCommon/gpt-5/simple_streaming.yaml", "https://ai-gateway.vercel.sh", "/v1", "openai/gpt-5",
			func(p *openai.ChatCompletionNewParams) { p.MaxCompletionTokens = openai.Int(4000) }, "Olá"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fantasy(t, tc.path)
			params := openai.ChatCompletionNewParams{Model: tc.model,
				Messages:      []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are a helpful assistant"), openai.UserMessage("Say hi in Portuguese")},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
			tc.limit(&params)
			px := startReplay(t, path, tc.upstream, "--match-preset", "openai")
			replayed := streamChat(t, openaiClient(px.URL+tc.base, nil), params)
			recorded := streamChat(t, openaiClient("http://recorded.invalid"+tc.base, direct(recording(t, path))), params)
			sameTurns(t, []chatTurn{replayed}, []chatTurn{recorded})
			if replayed.Chunks < 3 || replayed.FinishReason != "stop" || !strings.Contains(replayed.Text, tc.text) || replayed.Usage == 0 {
				t.Errorf("the recording streams an answer with %q, stops and counts its tokens; the SDK read %s", tc.text, replayed)
			}
			replayedAll(t, px, 1)
		})
	}
}

// TestAzureOpenAIToolLoop: a tool loop against Azure OpenAI's v1 API, the
// answer sent back as the SDK's documentation does (Message.ToParam).
func TestAzureOpenAIToolLoop(t *testing.T) {
	path := fantasy(t, "TestAzureCommon/azure-gpt-5-mini/tool_streaming.yaml")
	first := openai.ChatCompletionNewParams{Model: "gpt-5-mini", MaxCompletionTokens: openai.Int(4000),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are a helpful assistant"),
			openai.UserMessage("What's the weather in Florence,Italy?")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		ToolChoice:    openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "weather", Strict: openai.Bool(false), Description: openai.String("Get weather information for a location"),
			Parameters: shared.FunctionParameters{"properties": map[string]any{"location": map[string]any{"description": "the city", "type": "string"}},
				"required": []string{"location"}, "type": "object"}})}}
	loop := func(client openai.Client) []chatTurn {
		turn1 := streamChat(t, client, first)
		if len(turn1.message.ToolCalls) != 1 {
			t.Fatalf("the first turn should call one tool: %s", turn1)
		}
		second := first
		second.Messages = append(append([]openai.ChatCompletionMessageParamUnion(nil), first.Messages...),
			turn1.message.ToParam(), openai.ToolMessage("40 C", turn1.message.ToolCalls[0].ID))
		return []chatTurn{turn1, streamChat(t, client, second)}
	}
	const base = "/openai/v1"
	px := startReplay(t, path, "https://fantasy-playground-resource.openai.azure.com", "--match-preset", "openai")
	replayed := loop(openaiClient(px.URL+base, nil))
	recorded := loop(openaiClient("http://recorded.invalid"+base, direct(recording(t, path))))
	sameTurns(t, replayed, recorded)
	if replayed[0].FinishReason != "tool_calls" || !strings.HasPrefix(replayed[0].Tools[0], "weather(") ||
		replayed[1].FinishReason != "stop" || !strings.Contains(replayed[1].Text, "40") {
		t.Errorf("the recording calls weather, then answers with 40 °C; the SDK read:\n%s\n%s", replayed[0], replayed[1])
	}
	replayedAll(t, px, 2)
}

// responsesTurn is what a program sees of one streamed Responses call.
type responsesTurn struct {
	Events []string // event types, in order
	Status string   // of the completed response
	Output []string // the types of its output items
	Text   string
	Calls  []responses.ResponseOutputItemUnion
}

func (r responsesTurn) String() string {
	return fmt.Sprintf("%d events, status %q, output %v, text %q, events %v", len(r.Events), r.Status, r.Output, r.Text, r.Events)
}

func streamResponses(t *testing.T, client openai.Client, params responses.ResponseNewParams) responsesTurn {
	t.Helper()
	stream := client.Responses.NewStreaming(context.Background(), params)
	var turn responsesTurn
	for stream.Next() {
		ev := stream.Current()
		turn.Events = append(turn.Events, ev.Type)
		if ev.Type != "response.completed" {
			continue
		}
		done := ev.AsResponseCompleted().Response
		turn.Status, turn.Text = string(done.Status), done.OutputText()
		for _, item := range done.Output {
			turn.Output = append(turn.Output, item.Type)
			if item.Type == "function_call" {
				turn.Calls = append(turn.Calls, item)
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("the stream failed: %v", err)
	}
	return turn
}

// TestOpenAIResponsesReasoningToolLoop: the Responses API with reasoning
// summaries and a tool call, two turns.
func TestOpenAIResponsesReasoningToolLoop(t *testing.T) {
	path := fantasy(t, "TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml")
	input := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("You are a helpful assistant", responses.EasyInputMessageRoleDeveloper),
		responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			responses.ResponseInputContentParamOfInputText("What's the weather in Florence, Italy?")}, responses.EasyInputMessageRoleUser),
	}
	first := responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false),
		Include:    []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		Input:      responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Reasoning:  shared.ReasoningParam{Effort: shared.ReasoningEffortHigh, Summary: shared.ReasoningSummaryAuto},
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsAuto)},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "weather", Strict: openai.Bool(false),
			Description: openai.String("Get weather information for a location"),
			Parameters: map[string]any{"properties": map[string]any{"location": map[string]any{"description": "the city", "type": "string"}},
				"required": []string{"location"}, "type": "object"}}}}}
	loop := func(client openai.Client) []responsesTurn {
		turn1 := streamResponses(t, client, first)
		if len(turn1.Calls) != 1 {
			t.Fatalf("the first turn should call one function: %s", turn1)
		}
		call := turn1.Calls[0]
		out := responses.ResponseInputItemParamOfFunctionCallOutput("40 C")
		out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
		second := first
		second.Input.OfInputItemList = append(append(responses.ResponseInputParam(nil), input...),
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments.OfString, call.CallID, call.Name), out)
		return []responsesTurn{turn1, streamResponses(t, client, second)}
	}
	px := startReplay(t, path, "https://api.openai.com", "--match-preset", "openai")
	replayed := loop(openaiClient(px.URL+"/v1", nil))
	recorded := loop(openaiClient("http://recorded.invalid/v1", direct(recording(t, path))))
	sameTurns(t, replayed, recorded)
	if replayed[0].Status != "completed" || fmt.Sprint(replayed[0].Output) != "[reasoning function_call]" ||
		replayed[1].Status != "completed" || !strings.Contains(replayed[1].Text, "40") {
		t.Errorf("the recording reasons, calls weather, then answers with 40 °C; the SDK read:\n%s\n%s", replayed[0], replayed[1])
	}
	replayedAll(t, px, 2)
}
