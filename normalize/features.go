package normalize

import (
	"strings"
	"unicode/utf8"
)

// features are what a text holds that some built-in needs before it can
// rewrite anything: one scan of a string tells which built-ins to skip.
type features uint16

const (
	fDash       features = 1 << iota // '-'
	fColon                           // ':'
	fSpace                           // ' '
	fBlank                           // ' ' or '\t'
	fSlash                           // '/'
	fDigit                           // an ASCII digit
	fCommaSpace                      // ", "
	fDigits10                        // 10 digits in a row
	fHex7                            // 7 or more lowercase hex digits in a row
	fHex40                           // 40 or more lowercase hex digits in a row
	fAssign                          // ':' or '='
	// Bits about a jsonNode rather than its text:
	fKnown   features = 1 << 15 // its features are computed
	fClean   features = 1 << 14 // redaction has nothing to do in it
	fSettled features = 1 << 13 // no normalizer changed it in the last pass
	fTouched features = 1 << 12 // changed in this pass
)

// byteClass is, per byte, the features it gives alone.
var byteClass = func() (t [256]features) {
	for c := range 256 {
		b := byte(c)
		var f features
		switch b {
		case '-':
			f = fDash
		case ':':
			f = fColon | fAssign
		case '=':
			f = fAssign
		case ' ':
			f = fSpace | fBlank
		case '\t':
			f = fBlank
		case '/':
			f = fSlash
		}
		if isDigit(b) {
			f |= fDigit
		}
		t[c] = f
	}
	return t
}()

// runMasks are, per byte, all ones where it continues a run: of digits
// (digitRun), of lowercase hex digits (hexRun), and a comma (comma).
var digitRun, hexRun, comma = func() (d, h, c [256]int) {
	for i := range 256 {
		b := byte(i)
		if isDigit(b) {
			d[i] = -1
		}
		if isDigit(b) || b >= 'a' && b <= 'f' {
			h[i] = -1
		}
		if b == ',' {
			c[i] = -1
		}
	}
	return d, h, c
}()

// featuresOf scans s once for its features, without a branch per byte. A
// hex word needs a run of as many hex digits, which is what is measured
// (a feature may hold where its built-in then finds nothing: never the
// reverse).
func featuresOf(s string) features {
	var f features
	dRun, dMax, hRun, hMax, afterComma, commaSpace := 0, 0, 0, 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		f |= byteClass[c]
		dRun = (dRun + 1) & digitRun[c]
		dMax = max(dMax, dRun)
		hRun = (hRun + 1) & hexRun[c]
		hMax = max(hMax, hRun)
		if c == ' ' {
			commaSpace |= afterComma
		}
		afterComma = comma[c]
	}
	if dMax >= 10 {
		f |= fDigits10
	}
	if hMax >= 7 {
		f |= fHex7
	}
	if hMax >= 40 {
		f |= fHex40
	}
	if commaSpace != 0 {
		f |= fCommaSpace
	}
	return f
}

// hasTrailingBlank reports whether a line of s (without its "\n" and one
// "\r") ends with a space or a tab: where trimTrailing changes nothing.
func hasTrailingBlank(s string) bool {
	end := func(line string) bool {
		line = strings.TrimSuffix(line, "\r")
		return line != "" && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t')
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return end(s)
		}
		if end(s[:i]) {
			return true
		}
		s = s[i+1:]
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
