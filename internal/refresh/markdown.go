package refresh

import (
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// What a refresh PR, its commit and a fake-drift issue say is partly
// written by the real service (a drift's message and diff hold its
// answers) and partly by cassettes that arrive in pull requests (scenario
// names, field paths). On the forge that text must stay text: it mentions
// no one, links nowhere, shows no image, opens no HTML, and a fence it
// holds cannot close the one around it. So:
//
//   - names, paths and commands go in code spans (mdCode), where Markdown,
//     mentions and links are not rendered, each span's fence one backtick
//     longer than the longest run in it;
//   - a diff goes in a fenced block sized the same way (mdFence);
//   - a message is prose (mdText): '&', '<' and '>' as entities, Markdown's punctuation
//     backslash-escaped, and a zero-width space after '@' and '#' and in
//     "://" and "www." so that no mention, issue reference or autolink is
//     made of it;
//   - all of it without control characters (outcome.Printable).
//
// The owners named in cassette.yaml (code, not data) are the one place a
// mention is meant.

// zwsp is the zero-width space that breaks a mention or an autolink.
const zwsp = "\u200b"

// mdText is s as one line of Markdown prose that renders as s, and as
// nothing else.
func mdText(s string) string {
	s = htmlEscaper.Replace(outcome.Printable(s))
	s = mdEscaper.Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		switch {
		case (s[i] == '@' || s[i] == '#') && i+1 < len(s) && isWordByte(s[i+1]):
			b.WriteString(zwsp) // @user, #123, org/repo#123
		case s[i] == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(zwsp) // https://…
		case (s[i] == 'w' || s[i] == 'W') && i >= 2 && strings.EqualFold(s[i-2:i+1], "www") && i+1 < len(s) && s[i+1] == '.':
			b.WriteString(zwsp) // www.…
		}
	}
	return b.String()
}

// htmlEscaper escapes what starts HTML or an entity, and nothing else: a
// quote is text in Markdown prose, and its entity (&#34;) would take a
// zero-width space after its '#' and show as itself.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"!", `\!`, "|", `\|`, "~", `\~`, "<", `\<`, ">", `\>`,
)

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// mdCode is s as an inline code span: rendered as it is, on one line.
func mdCode(s string) string {
	s = outcome.Printable(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") || s == "" {
		s = " " + s + " " // CommonMark strips one space on each side
	}
	return fence + s + fence
}

// mdCell is mdCode for a table cell, where '|' ends the cell even in code.
func mdCell(s string) string { return strings.ReplaceAll(mdCode(s), "|", `\|`) }

// mdFence is body as a fenced code block with the info string info: its
// fence is longer than any run of backticks in body, so that no line of
// it closes the block.
func mdFence(body, info string) string {
	body = outcome.PrintableText(body)
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + info + "\n" + body + fence + "\n"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
