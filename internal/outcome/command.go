package outcome

import "strings"

// Command renders words as one command line that a POSIX shell runs as
// printed: each word that holds anything a shell would split, expand, glob
// or redirect is single-quoted. Every command cassette prints for a person
// to run (a next step, a reproduction in a report, a forge text) is built
// here, from the project's own names, so that one quoting rule holds
// everywhere and a name from the wild (spaces, parentheses, quotes) still
// pastes as one word.
//
// A first word of the form NAME=VALUE stays an environment assignment
// (`PORT=8080 ./fake`); quote the value with Quote when it needs it.
func Command(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

// Quote returns word as one shell word: unchanged when every character is
// plain (letters, digits and / . - _ = : , @ + %), else in single quotes,
// each single quote in it closed, escaped and opened again. The empty word
// is an empty pair of quotes. A word holding a control character (a line
// break, an escape), a bidirectional control or a byte that is not UTF-8
// is printed through printf (printfWord), so that the printed command is
// one line of visible characters and still gives the program that word.
func Quote(word string) string {
	if word != "" && strings.IndexFunc(word, notPlain) < 0 {
		return word
	}
	if strings.IndexFunc(word, unsafeRune) >= 0 {
		return printfWord(word)
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

func notPlain(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/.-_=:,@+%", r))
}
