package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"
)

func geminiClient(t *testing.T, base string, hc *http.Client) *genai.Client {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "replayed", Backend: genai.BackendGeminiAPI,
		HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: base + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// geminiTurn is what a program sees of one streamed generateContent call.
type geminiTurn struct {
	Chunks       int
	FinishReason string
	Text         string
	Calls        []string // name(args) of each function call
	content      *genai.Content
}

func (g geminiTurn) String() string {
	return fmt.Sprintf("%d chunks, finish %q, calls %v, text %q", g.Chunks, g.FinishReason, g.Calls, g.Text)
}

// streamGemini makes one streamed call (GenerateContentStream) and gathers
// the model's parts, as a chat keeps them for the next turn.
func streamGemini(t *testing.T, client *genai.Client, model string, contents []*genai.Content, config *genai.GenerateContentConfig) geminiTurn {
	t.Helper()
	turn := geminiTurn{content: &genai.Content{Role: "model"}}
	for resp, err := range client.Models.GenerateContentStream(context.Background(), model, contents, config) {
		if err != nil {
			t.Fatalf("the stream failed: %v", err)
		}
		turn.Chunks++
		turn.Text += resp.Text()
		for _, c := range resp.Candidates {
			if c.FinishReason != "" {
				turn.FinishReason = string(c.FinishReason)
			}
			if c.Content == nil {
				continue
			}
			for _, p := range c.Content.Parts {
				turn.content.Parts = append(turn.content.Parts, p)
				if p.FunctionCall != nil {
					args, _ := json.Marshal(p.FunctionCall.Args)
					turn.Calls = append(turn.Calls, p.FunctionCall.Name+"("+string(args)+")")
				}
			}
		}
	}
	return turn
}

// TestGeminiSimpleStream: one streamed answer.
func TestGeminiSimpleStream(t *testing.T) {
	path := fantasy(t, "TestGoogleCommon/gemini-2.5-flash/simple_streaming.yaml")
	contents := []*genai.Content{genai.NewContentFromText("Say hi in Portuguese", genai.RoleUser)}
	config := &genai.GenerateContentConfig{MaxOutputTokens: 4000,
		SystemInstruction: genai.NewContentFromText("You are a helpful assistant", genai.RoleUser)}
	px := startReplay(t, path, "https://generativelanguage.googleapis.com", "--match-preset", "gemini")
	replayed := streamGemini(t, geminiClient(t, px.URL, nil), "gemini-2.5-flash", contents, config)
	recorded := streamGemini(t, geminiClient(t, "http://recorded.invalid", direct(recording(t, path))), "gemini-2.5-flash", contents, config)
	sameTurns(t, []geminiTurn{replayed}, []geminiTurn{recorded})
	if replayed.Chunks != 1 || replayed.FinishReason != "STOP" || replayed.Text != "Olá!" {
		t.Errorf("the recording answers Olá! in one chunk; the SDK read %s", replayed)
	}
	replayedAll(t, px, 1)
}

// TestGeminiParallelToolLoop: two function calls in one turn (the first
// with a thought signature, which goes back in the second request), then
// the answer.
func TestGeminiParallelToolLoop(t *testing.T) {
	path := fantasy(t, "TestGoogleCommon/gemini-2.5-pro/multi_tool_streaming.yaml")
	number := func(d string) *genai.Schema { return &genai.Schema{Type: genai.TypeInteger, Description: d} }
	fn := func(name, d string) *genai.FunctionDeclaration {
		return &genai.FunctionDeclaration{Name: name, Description: d, Parameters: &genai.Schema{Type: genai.TypeObject,
			Properties: map[string]*genai.Schema{"a": number("first number"), "b": number("second number")}, Required: []string{"a", "b"}}}
	}
	config := &genai.GenerateContentConfig{MaxOutputTokens: 4000,
		SystemInstruction: genai.NewContentFromText("You are a helpful assistant. Always use both add and multiply at the same time.", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{fn("add", "Add two numbers"), fn("multiply", "Multiply two numbers")}}},
		ToolConfig:        &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}}}
	loop := func(client *genai.Client) []geminiTurn {
		contents := []*genai.Content{genai.NewContentFromText("Add and multiply the number 2 and 3", genai.RoleUser)}
		turn1 := streamGemini(t, client, "gemini-2.5-pro", contents, config)
		results := &genai.Content{Role: genai.RoleUser}
		// The program that recorded this numbers the calls ("1", "2") and
		// answers each by its number.
		for i, p := range turn1.content.Parts {
			if p.FunctionCall == nil {
				continue
			}
			id := fmt.Sprint(i + 1)
			p.FunctionCall.ID = id
			a, b := int(p.FunctionCall.Args["a"].(float64)), int(p.FunctionCall.Args["b"].(float64))
			r := map[string]int{"add": a + b, "multiply": a * b}[p.FunctionCall.Name]
			results.Parts = append(results.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: p.FunctionCall.Name,
				Response: map[string]any{"result": fmt.Sprint(r)}}})
		}
		contents = append(contents, turn1.content, results)
		return []geminiTurn{turn1, streamGemini(t, client, "gemini-2.5-pro", contents, config)}
	}
	px := startReplay(t, path, "https://generativelanguage.googleapis.com", "--match-preset", "gemini")
	replayed := loop(geminiClient(t, px.URL, nil))
	recorded := loop(geminiClient(t, "http://recorded.invalid", direct(recording(t, path))))
	sameTurns(t, replayed, recorded)
	if fmt.Sprint(replayed[0].Calls) != `[add({"a":2,"b":3}) multiply({"a":2,"b":3})]` || replayed[0].FinishReason != "STOP" ||
		!strings.Contains(replayed[1].Text, "is 5") || !strings.Contains(replayed[1].Text, "is 6") {
		t.Errorf("the recording calls add and multiply, then answers 5 and 6; the SDK read:\n%s\n%s", replayed[0], replayed[1])
	}
	replayedAll(t, px, 2)
}
