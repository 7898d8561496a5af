package outcome

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What cassette prints to a terminal, a CI log or a forge is free of
// control characters that come from data. A name, a path or a body taken
// from a cassette (which arrives in pull requests) or from the wild (a
// go-vcr file named after a test) may hold a line break, which forges a
// line of its own in a CI log (a fake `next:` line), an escape sequence,
// which a terminal obeys (clear the screen, set the window title, write
// the clipboard, make a link), or a bidirectional override, which shows
// the text in another order than it is. Printable and PrintableText turn
// each such character into a visible escape; Quote does the same for the
// words of a printed command (see printfWord).

// unsafeRune reports whether r must not reach a terminal as it is: C0 and
// C1 control characters, DEL, the bidirectional controls, and bytes that
// are not UTF-8 (utf8.RuneError from a decoder).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
}

// Printable returns s for one line of output: every control character
// (line breaks and tabs included), bidirectional control and byte that is
// not UTF-8 is written as a Go escape (\n, \x1b, \u202e, \xff); the rest
// is unchanged. A string that needs none comes back as it is.
func Printable(s string) string { return printable(s, false) }

// PrintableText is Printable for text shown over several lines (a diff, a
// body, a message): line breaks and tabs are kept, every other control
// character (an escape sequence's ESC, a carriage return that would
// overwrite the line) is written as a visible escape.
func PrintableText(s string) string { return printable(s, true) }

func printable(s string, text bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return unsafeRune(r) && !(text && (r == '\n' || r == '\t')) }) < 0 {
		return s // ranging over bytes that are not UTF-8 gives utf8.RuneError
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case text && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// printfWord renders a word holding characters that must not be printed
// as they are (see unsafeRune) as one shell word that a POSIX shell (dash
// included, which has no $'…') turns back into exactly those bytes:
// "$(printf 'FORMAT')", each unsafe byte an octal escape. Command
// substitution drops trailing line breaks, so a word that ends in one
// loses them: no name cassette accepts holds a line break (see ValidName),
// and the printed line stays one line either way. To give a program bytes
// exactly, pipe Printf into it.
func printfWord(word string) string { return `"$(` + Printf(word) + `)"` }

// Printf is a command that writes s, byte for byte, on its standard
// output (`printf 'FORMAT'`): one line of visible characters whatever s
// holds, each control character, bidirectional control or byte that is
// not UTF-8 an octal escape. It is how a printed command feeds a program
// its standard input: Printf(input) + " | " + Command(argv...).
func Printf(s string) string {
	var b strings.Builder
	b.WriteString("printf ")
	if strings.HasPrefix(s, "-") {
		b.WriteString("-- ") // not an option of bash's printf
	}
	b.WriteString("'")
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size <= 1, unsafeRune(r):
			for i := range size {
				fmt.Fprintf(&b, `\%03o`, s[i])
			}
		case r == '\'':
			b.WriteString(`'\''`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '%':
			b.WriteString(`%%`)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	b.WriteString(`'`)
	return b.String()
}

// PrintableBlock is PrintableText with every line after the first
// indented by at least pre: text from data printed under a line of
// cassette's own (a problem under an error, a diff under a case) cannot
// start a line at the margin, where `error[…]` and `next:` lines are.
func PrintableBlock(s, pre string) string {
	lines := strings.Split(PrintableText(strings.TrimRight(s, "\n")), "\n")
	for i := 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], pre) {
			lines[i] = pre + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
