package outcome

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPrintable: what data brings (a line break that would forge a log
// line, a terminal escape, a bidi override, bytes that are not UTF-8) is
// shown as a visible escape; everything else, non-ASCII letters included,
// is left as it is.
func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"list-pulls", "list-pulls", "list-pulls"},
		{"ünïcode ✓", "ünïcode ✓", "ünïcode ✓"},
		{"a\nnext: rm -rf ~", `a\nnext: rm -rf ~`, "a\nnext: rm -rf ~"},
		{"tab\tx", `tab\tx`, "tab\tx"},
		{"\x1b[2J\x1b]52;c;ZXZpbA==\x07", `\x1b[2J\x1b]52;c;ZXZpbA==\x07`, `\x1b[2J\x1b]52;c;ZXZpbA==\x07`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"c1\u009bm", `c1\x9bm`, `c1\x9bm`},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"bidi\u202eevil\u2066", `bidi\u202eevil\u2066`, `bidi\u202eevil\u2066`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`},
	} {
		if got := Printable(c.in); got != c.line {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := PrintableText(c.in); got != c.text {
			t.Errorf("PrintableText(%q) = %q, want %q", c.in, got, c.text)
		}
		if strings.IndexFunc(Printable(c.in), unsafeRune) >= 0 {
			t.Errorf("Printable(%q) still holds a control character", c.in)
		}
	}
}

// TestPrintableBlock: lines of data under a line of cassette's own are
// indented, so that none of them reads as an `error[…]` or `next:` line.
func TestPrintableBlock(t *testing.T) {
	got := PrintableBlock("x.yaml: bad\nnext: rm -rf ~\n    kept\x1b[2J\n", "    ")
	want := "x.yaml: bad\n    next: rm -rf ~\n    kept\\x1b[2J"
	if got != want {
		t.Errorf("PrintableBlock = %q, want %q", got, want)
	}
}

// TestPrintfWritesBytes: Printf(s), run by sh and by bash, writes s byte
// for byte (trailing line breaks, escapes, quotes, '%', '\', a leading
// '-', bytes that are not UTF-8), printed as one line of visible text.
func TestPrintfWritesBytes(t *testing.T) {
	for _, s := range []string{"", "plain", "it's\nmulti-line\n\n", "100%s %d \\n \\", "-v x", "--", "esc\x1b[2J\r\x7f", "bidi\u202e", "bad\xff", "ünï\t"} {
		line := Printf(s)
		if strings.IndexFunc(line, unsafeRune) >= 0 {
			t.Errorf("Printf(%q) = %q holds a control character", s, line)
		}
		for _, sh := range []string{"sh", "bash"} {
			if _, err := exec.LookPath(sh); err != nil {
				continue
			}
			out, err := exec.Command(sh, "-c", line).Output()
			if err != nil || string(out) != s {
				t.Errorf("%s -c %s wrote %q (%v), want %q", sh, line, out, err, s)
			}
		}
	}
}
