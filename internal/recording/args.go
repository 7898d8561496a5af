package recording

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// argsLeak refuses to record a command whose own command line holds a
// credential value: a cassette keeps the command and its arguments so that
// refresh can run them again, and it cannot keep them redacted (the run
// would send [REDACTED]) nor as they are (the secret would reach disk). The
// error names each field (input.command, input.args[N]) and the variable,
// never the value, and its next step is the same command referring to the
// variable instead, for the shell to expand when the command runs.
//
// Before the run it finds the declared credentials and the values the
// command line passes under a credential name (--token=X, -H
// "Authorization: …", redact.Rules.ArgValues) or that a credential-named
// variable of the environment holds; after the run, also the values
// learned while recording (a bearer token that is not declared). Standard
// input is refused when it holds a declared value or a value under a
// credential name ({"password": …}).
func argsLeak(red *redact.Redactor, opts CLIOptions) error {
	fields := append([]string{opts.Command}, opts.Args...)
	var probs []outcome.Problem
	vars := map[string]bool{}
	learned := false
	var withheld []string // other adapters' (or the forge's) variables the command holds
	for i, a := range fields {
		field := "input.command"
		if i > 0 {
			field = fmt.Sprintf("input.args[%d]", i-1)
		}
		for _, name := range red.NamesIn(a) {
			msg := "holds the value of the credential variable " + name
			if name == redact.Learned {
				learned = true
				msg = "holds a credential: a value under a credential name (a flag such as --token, a header, a parameter, " +
					"a credential-named variable) or one the command sends in a credential header or cookie; the variable is not declared"
			} else {
				vars[name] = true
				if notOwn(opts, name) && !slices.Contains(withheld, name) {
					withheld = append(withheld, name)
				}
			}
			probs = append(probs, outcome.Problem{Field: field, Message: msg + "; the value is not shown",
				Expected: `a reference to the variable ("$` + varFor(name, opts.Adapter) + `"), expanded by the shell`})
		}
	}
	// Standard input is kept to be fed again on every re-recording: a
	// credential in it would be replayed as [REDACTED] to the real service.
	for _, name := range red.NamesIn(string(opts.Stdin)) {
		if name == redact.Learned {
			continue
		}
		vars[name] = true
		if notOwn(opts, name) && !slices.Contains(withheld, name) {
			withheld = append(withheld, name)
		}
		probs = append(probs, outcome.Problem{Field: "input.stdin", Message: "holds the value of the credential variable " + name + "; the value is not shown",
			Expected: "standard input without credentials: pass them through the environment (real.credentials)"})
	}
	if _, hidden := red.Rules().RedactByName("", opts.Stdin); len(hidden) > 0 {
		learned = true
		probs = append(probs, outcome.Problem{Field: "input.stdin", Message: "holds a value under a credential name (a JSON key such as \"password\"); the value is not shown",
			Expected: "standard input without credentials: pass them through the environment (real.credentials)"})
	}
	if len(probs) == 0 {
		return nil
	}
	suggestion := red.String(suggestCommand(red, opts))
	e := &outcome.Error{Reason: outcome.ESecretLeak, Problems: probs, NextStep: suggestion,
		Message: fmt.Sprintf("refusing to record: %s holds a credential value; the cassette keeps the command line to run it again, so it must refer to the variable, not hold its value",
			probs[0].Field)}
	if len(withheld) > 0 {
		e.Message += fmt.Sprintf("; %s is not a credential of adapter %s (another adapter or the forge declares it) and is never given to its command: declare it under `real.credentials` of adapter %s in cassette.yaml if the command needs it, and refer to it instead of its value, as below",
			strings.Join(withheld, ", "), orAdapter(opts.Adapter), orAdapter(opts.Adapter))
	}
	switch {
	case learned:
		v := varFor(redact.Learned, opts.Adapter)
		e.Message += fmt.Sprintf("; put the credential in the variable %s, declare it under `real.credentials` of adapter %s in cassette.yaml, and refer to it in the command instead of its value, as below",
			v, orAdapter(opts.Adapter))
	case len(withheld) == 0:
		e.Message += "; refer to the variable instead (it is declared; the shell expands it when the command runs), as below"
	}
	return e
}

// notOwn reports whether the credential variable name is one the command
// does not get (CLIOptions.Withheld).
func notOwn(opts CLIOptions, name string) bool {
	return slices.Contains(opts.Withheld, name) && !slices.Contains(opts.Credentials, name)
}

// varFor is the variable a value is referred to by in the suggested command.
func varFor(name, adapter string) string {
	if name != redact.Learned {
		return name
	}
	a := strings.ToUpper(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(adapter, "_"))
	if a == "" || a == "_" {
		return "API_TOKEN"
	}
	return strings.Trim(a, "_") + "_TOKEN"
}

func orAdapter(a string) string {
	if a == "" {
		return "NAME"
	}
	return a
}

// suggestCommand is the `cassette record` command line that runs the same
// command with each credential value replaced by a reference to its
// variable (argvWithRefs).
func suggestCommand(red *redact.Redactor, opts CLIOptions) string {
	words := append([]string{"cassette", "record", "--adapter", orAdapter(opts.Adapter), "--scenario", orScenario(opts.Scenario), "--"},
		argvWithRefs(red, opts.Adapter, append([]string{opts.Command}, opts.Args...))...)
	return outcome.Command(words...)
}

// CommandWithRefs is the argv of `record -- COMMAND` as a printed next
// step may hold it: every credential value in it (a declared one, a value
// under a credential name such as --token=X or -H 'Authorization: …', the
// value of a credential-named variable of the environment) replaced by a
// reference to its variable, for the shell to expand (argvWithRefs).
// Without such a value it is command as given. Every door that repeats a
// command line it was handed prints it through this, so that an error
// before the recording's own check never echoes a token.
func CommandWithRefs(rules *redact.Rules, credentials []string, adapter string, command []string) []string {
	if len(command) == 0 {
		return command
	}
	red := redact.New(rules, Credentials(credentials, nil))
	red.LearnEnv(os.Environ())
	red.LearnArgs(command)
	if !slices.ContainsFunc(command, func(a string) bool { return len(red.NamesIn(a)) > 0 }) {
		return command
	}
	return argvWithRefs(red, adapter, command)
}

// argvWithRefs is command with each credential value replaced by a
// reference to its variable: inside the script of `sh -c SCRIPT` as
// ${VAR}, otherwise by wrapping the command in sh -c with "${VAR}" in
// place of the value.
func argvWithRefs(red *redact.Redactor, adapter string, command []string) []string {
	const mark = "\x00"
	repl := func(name string) string { return mark + varFor(name, adapter) + mark }
	words := make([]string, len(command))
	for i, a := range command {
		words[i] = red.ReplaceValues(a, repl)
	}
	switch filepath.Base(command[0]) {
	case "sh", "bash", "dash", "zsh", "ksh":
		if argv := scriptWithRefs(words, mark); argv != nil {
			return argv
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellWord(w, mark)
	}
	return []string{"sh", "-c", strings.Join(quoted, " ")}
}

// scriptWithRefs is `sh … -c SCRIPT …` with the references in SCRIPT as
// ${VAR}, when no other word holds one; else nil.
func scriptWithRefs(words []string, mark string) []string {
	at := slices.Index(words[1:], "-c") + 1
	if at == 0 || at+1 >= len(words) {
		return nil
	}
	out := make([]string, len(words))
	for i, w := range words {
		switch {
		case i == at+1:
			out[i] = strings.ReplaceAll(withRefs(w, mark, "${", "}"), mark, "")
		case strings.Contains(w, mark):
			return nil
		default:
			out[i] = w
		}
	}
	return out
}

func orScenario(s string) string {
	if s == "" {
		return "NAME"
	}
	return s
}

// withRefs turns each mark-delimited variable name in s into open+name+close.
func withRefs(s, mark, open, close string) string {
	parts := strings.Split(s, mark)
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(open + p + close)
		} else {
			b.WriteString(p)
		}
	}
	return b.String()
}

// shellQuote quotes s as one sh word (outcome.Quote: the one quoting
// rule of every printed command).
func shellQuote(s string) string { return outcome.Quote(s) }

// shellWord quotes s as one sh word in which the mark-delimited variable
// names become "${VAR}" references.
func shellWord(s, mark string) string {
	if !strings.Contains(s, mark) {
		return shellQuote(s)
	}
	parts := strings.Split(s, mark)
	var b strings.Builder
	b.WriteByte('"')
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("${" + p + "}")
			continue
		}
		for _, r := range p {
			if strings.ContainsRune("\\\"$`", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
