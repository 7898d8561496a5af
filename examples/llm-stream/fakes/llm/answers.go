package main

// answer is what the model says to a prompt, as the stream delivers it.
type answer struct {
	deltas                    []string // the text, delta by delta
	tool                      *toolCall
	inputTokens, outputTokens int
	// startTokens is the output_tokens of the message_start event: what the
	// model had counted when the stream began, not the final count.
	startTokens int
}

// toolCall is a tool the model asks for, its input as the stream
// delivers it (input_json_delta by input_json_delta).
type toolCall struct {
	name  string
	input []string
}

func (a answer) stopReason() string {
	if a.tool != nil {
		return "tool_use"
	}
	return "end_turn"
}

// conversation is what the model says to a prompt, and after the tool it
// asked for answered.
type conversation struct {
	first, afterTool answer
}

// model is the model the fake says it is.
const model = "claude-sonnet-4-20250514"

// answers are the prompts the fake knows: the ones of the real recordings
// (README: the API's real side).
var answers = map[string]conversation{
	"Say hi in Portuguese": {first: answer{deltas: []string{"Olá! (", "That", "'s \"hi", "\" in Portuguese)", "\n\nYou", " could",
		" also", " say \"", "Oi!\" which", " is a", " more", " casual way to say hi in Portuguese."}, inputTokens: 16, outputTokens: 38, startTokens: 5}},
	"What's the weather in Florence,Italy?": {
		first: answer{deltas: []string{"I'll get the weather information", " for Florence, Italy for you."},
			tool:        &toolCall{name: "weather", input: []string{"", `{"locati`, `on":`, ` "Fl`, `orence,It`, `aly"}`}},
			inputTokens: 394, outputTokens: 67, startTokens: 6},
		afterTool: answer{deltas: []string{"The", " current", " weather in Florence, Italy shows", " a", " temperature of 40°C (104",
			"°F). That", "'s quite hot! Make", " sure to", " stay hydrated and seek", " shade if", " you're planning to be", " outd", "oors."},
			inputTokens: 476, outputTokens: 46, startTokens: 1},
	},
}

func answerFor(prompt string, toolAnswered bool) (answer, bool) {
	c, ok := answers[prompt]
	if toolAnswered {
		return c.afterTool, ok && c.afterTool.deltas != nil
	}
	return c.first, ok
}
