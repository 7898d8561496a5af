package main

// answer is what the model says to a prompt, as the stream delivers it.
type answer struct {
	deltas                    []string // the text, delta by delta
	inputTokens, outputTokens int
}

// answers are the prompts the fake knows.
var answers = map[string]answer{
	"Count from 1 to 5": {deltas: []string{"1", "\n2\n3", "\n4\n5"}, inputTokens: 15, outputTokens: 13},
}

func answerFor(prompt string) (answer, bool) {
	a, ok := answers[prompt]
	return a, ok
}
