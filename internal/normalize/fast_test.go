package normalize

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/cassette-dev/cassette/internal/redact"
)

// fastSeeds are texts at the edges of what the hand-written scanning
// replaces: the longest forms of each pattern, forms cut one byte short,
// neighbours that overlap, non-ASCII folding.
var fastSeeds = []string{
	"", "2026-11-22T14:00:00Z", "2026-11-22 14:00", "2026-11-22T14:00:00.123456789+01:00", "2026-11-22T14:00:00,1234567891-0130",
	"2026-11-22T14:00:00.+01", "2026-11-22T14:00:-01:", "12026-11-22T14:00:00Z2026-11-22T14:00Z", "2026-11-22T14:0",
	"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "9F1C3A2E-1B7D-4C8E-9A55-0D1E2F3A4B5C0", "x9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5",
	"Sat, 22 Nov 2026 14:00:00 GMT", "Wed, 2-Nov-2026 14:00:00 +0100", "Sun, 22 Nov 2026 14:00:00 UT",
	"Sat Nov 22 14:00:00 2026 +0000", "Mon Jan  2 15:04:05 2006", "FriSat Nov 22 14:00:00 2026 -1200x",
	"Date:   Sat Nov 22 14:00:00 2026 +0000\n", "created_at", "CREATED_AT", "auth_time", "x\n_at", "\u212a", "ſince", "updated_aT",
	"6dcb09b5b57875f334f61aebed695e2e4193db5e", "6dcb09b", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "hunter2-secret",
	"AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"127.0.0.1:8080", "/tmp/x1/y", "/work/app/z", "/private/tmp/a/b", "/tmp/a/b c", "C:/Users/me/AppData/Local/Temp/x",
	"/private/var/folders/ab/cd_ef/T/tmp.x", "/odd\nroot/x y\n", "a/odd\nroot/z", "/var/folders/ab/cd/T/", "/private/var/folders/ab/cd/T/x:y", "ts=1763820000", "1763820000123", "a, b", "\t \r\n",
}

// TestMatchersAgreeWithRegexp: each hand-written matcher finds what its
// expression finds, on the seeds and (with -fuzz) on anything.
func FuzzMatchersAgreeWithRegexp(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Add(strings.Join(fastSeeds, " "))
	creds := map[string]string{"TOKEN": "hunter2-secret", "SHORT": "abc"}
	tiny := map[string]string{"TINY": "zq"}
	redTiny := newRedactor(tiny, nil)
	red := newRedactor(creds, nil)
	many := map[string]string{"A": "hunter2-secret", "B": "abc", "C": "2026-11", "D": "EXAMPLE", "E": "s3cr3t!", "F": "/tmp/a"}
	redMany := newRedactor(many, nil)
	if redMany.few != nil || red.few == nil {
		f.Fatal("the redactors do not look for their declared values as the test means")
	}
	tmps := tmpMatcher([]string{"/tmp", "/var/tmp", "/private/tmp", "/tmp/a"})
	winTmps := tmpMatcher([]string{"/tmp", "C:/Users/me/AppData/Local/Temp", "\xc3\xa9/t", "/odd\nroot"})
	var one []Normalizer
	for _, name := range allNames {
		if name == "pr" {
			continue
		}
		q, err := Builtins().Pipeline([]string{name}, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}})
		if err != nil {
			f.Fatal(err)
		}
		one = append(one, q.steps...)
	}
	mark := func(m string, _ *State) string { return "<" + m + ">" }
	always := func(string) bool { return true }
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range []*candidateMatcher{isoMatcher, uuidMatcher, rfc1123Matcher, ansicMatcher, macTempMatcher, tmps, winTmps} {
			got, want := m.findAll(s), m.re().FindAllStringIndex(s, -1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s in %q: found %v, the expression finds %v", m.re(), s, got, want)
			}
			// A rule on it (which replaces a text that is one match
			// directly) rewrites what the expression's matches give.
			n, _ := textRule(m, nil, 0, always, mark)("", Options{})
			ref := replaceBounded(regexMatcher{m.re}, s, func(x string) string { return mark(x, nil) })
			if got := n.Text(s, NewState()); got != ref {
				t.Fatalf("a rule on %s rewrites %q to %q; by the expression's matches, %q", m.re(), s, got, ref)
			}
		}
		if got, want := isPlaceholder(s), len(s) > 2 && s[0] == '<' && placeholderRE().MatchString(s); got != want {
			t.Fatalf("isPlaceholder(%q) = %v, placeholderRE says %v", s, got, want)
		}
		if got, want := isUnixKey(s), unixKeyRE().MatchString(s); got != want {
			t.Fatalf("isUnixKey(%q) = %v, unixKeyRE says %v", s, got, want)
		}
		if f, clean := red.textFeatures(s); f != featuresOf(s) || clean == red.mayChange(s) {
			t.Fatalf("textFeatures(%q) = %b, %v; featuresOf %b, mayChange %v", s, f, clean, featuresOf(s), red.mayChange(s))
		}
		if f, clean := redTiny.textFeatures(s); f != featuresOf(s) || clean == redTiny.mayChange(s) || redTiny.text(s) != redact.RedactString(s, tiny) {
			t.Fatalf("with a two-byte value, on %q: textFeatures %b, %v; mayChange %v", s, f, clean, redTiny.mayChange(s))
		}
		if got, want := red.text(s), redact.RedactString(s, creds); got != want {
			t.Fatalf("redactor on %q: %q, redact.RedactString gives %q", s, got, want)
		}
		// More declared values than maxFew: found by the scan of triples.
		if got, want := redMany.text(s), redact.RedactString(s, many); got != want {
			t.Fatalf("redactor of %d values on %q: %q, redact.RedactString gives %q", len(many), s, got, want)
		}
		if f, clean := redMany.textFeatures(s); f != featuresOf(s) || clean == redMany.mayChange(s) {
			t.Fatalf("with %d values, textFeatures(%q) = %b, %v; mayChange %v", len(many), s, f, clean, redMany.mayChange(s))
		}
		// A normalizer skipped for lack of a feature would not have
		// changed the text.
		has := featuresOf(s)
		for _, n := range one {
			if n.Text == nil || has&n.needs == n.needs {
				continue
			}
			if out := n.Text(s, NewState()); out != s {
				t.Fatalf("%s is skipped on %q (features %b, needs %b) but rewrites it to %q", n.Name, s, has, n.needs, out)
			}
		}
	})
}

// TestPlanGroupsByKind: text parts that number the same kind (sha:full and
// sha:short) are never in one group, a JSON part ends a group, and a
// normalizer of unknown kinds is alone.
func TestPlanGroupsByKind(t *testing.T) {
	r := Builtins()
	if err := r.Register("opaque", func(string, Options) (Normalizer, error) {
		return Normalizer{Text: func(s string, _ *State) string { return s }}, nil
	}); err != nil {
		t.Fatal(err)
	}
	p, err := r.Pipeline([]string{"timestamps.ISO8601", "uuid", "sha:full", "sha:short", "opaque", "ports", "timestamps.unix", "whitespace.trailing"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.stages {
		switch {
		case s.json != nil && len(s.texts) == 0:
			got = append(got, "json")
		case s.json == nil:
			got = append(got, strings.Repeat("t", len(s.texts)))
		default:
			t.Fatalf("a stage with both parts: %+v", s)
		}
	}
	// ISO8601 uuid sha:full | sha:short | opaque | ports | unix's JSON | unix's text, whitespace
	want := []string{"ttt", "t", "t", "t", "json", "tt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stages %v, want %v", got, want)
	}
}

// TestGroupedNumberingMatchesStepwise: a short SHA before a full one in
// the document keeps the numbers that normalizer-by-normalizer
// application gives (sha:full numbers every full SHA first).
func TestGroupedNumberingMatchesStepwise(t *testing.T) {
	p, err := Builtins().Pipeline([]string{"sha:full", "sha:short", "uuid"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := `["abc1234f", "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "6dcb09b5b57875f334f61aebed695e2e4193db5e"]`
	out, ok := p.JSON(NewState(), []byte(in))
	if !ok {
		t.Fatal("not JSON")
	}
	want := `["<sha:2:short>", "<uuid:1>", "<sha:1>"]`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestRedactorMatchesRedactOnRealCassettes: on every line of the real
// cassettes of ../shared/testdata, the pipeline's redaction (its
// prefilters, and formats alone where no declared value occurs) gives
// what redact.RedactString gives, with declared values that occur in them
// and one that does not.
func TestRedactorMatchesRedactOnRealCassettes(t *testing.T) {
	creds := map[string]string{"TOKEN": "hunter2-secret", "CT": "application/json", "HOST": "api.github.com"}
	red := newRedactor(creds, nil)
	lines, declared, changed := 0, 0, 0
	root := filepath.Join("..", "..", "..", "shared", "testdata")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			lines++
			want := redact.RedactString(line, creds)
			if got := red.text(line); got != want {
				t.Fatalf("%s: the pipeline's redaction of %q is %q; redact.RedactString gives %q", p, line, got, want)
			}
			if red.mayHoldDeclared(line) {
				declared++
			}
			if want != line {
				changed++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines < 5000 || declared == 0 || changed == 0 {
		t.Fatalf("%d lines of real cassettes, %d with a declared value, %d redacted: want the ~6,000 of the 48 files, some of each", lines, declared, changed)
	}
}

// scanTextRef is scanText as it was written first, a max kept per run, and
// the pairs of two-byte keywords tested apart: the reference the packed run
// counters of scanText are checked against.
func scanTextRef(s string, set *byteSet) (features, bool) {
	pair := false
	for i := 1; i < len(s); i++ {
		a, b := foldASCII(s[i-1]), foldASCII(s[i])
		pair = pair || (a == 'e' || a == 'q') && (b == 'y' || b == '~') || a == 's' && (b == '.' || b == 'k')
	}
	var f, before, h, hit uint64
	dRun, dMax, hRun, hMax := uint64(0), uint64(0), uint64(0), uint64(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		e := byteBits[c]
		f |= e | (before>>16)&(e>>32)
		before = e
		dRun = (dRun + 1) & -(e >> 48 & 1)
		dMax = max(dMax, dRun)
		hRun = (hRun + 1) & -(e >> 49 & 1)
		hMax = max(hMax, hRun)
		h = (h<<5 ^ uint64(foldASCII(c))) & (1<<15 - 1)
		hit |= uint64(set[h])
	}
	g := features(f & (1<<featureBits - 1))
	if s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		g |= fTrailBlank
	}
	if dMax >= 10 {
		g |= fDigits10
	}
	if hMax >= 7 {
		g |= fHex7
	}
	if hMax >= 40 {
		g |= fHex40
	}
	return g, hit&1 != 0 || pair
}

func scanTextRefFeatures(s string) features {
	f, _ := scanTextRef(s, &noTriples)
	return f
}

// FuzzScanTextMatchesReference: scanText (and featuresOf, its features
// alone) gives what scanTextRef gives, at
// each threshold of the runs and one byte short of it, and past the 32,768
// and 522 bytes in a row where a run's field overflows into the next.
func FuzzScanTextMatchesReference(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	for _, n := range []int{6, 7, 9, 10, 39, 40, 41} {
		f.Add(strings.Repeat("7", n))
		f.Add(strings.Repeat("a", n))
		f.Add("x" + strings.Repeat("0123456789abcdef", 3)[:n] + ":1 ")
	}
	f.Add(strings.Repeat("1", 1<<15+11) + "g" + strings.Repeat("a", 6))
	f.Add(strings.Repeat("1", 530) + "g" + strings.Repeat("a", 6) + "-123456789")
	f.Add(strings.Repeat("1", 1030) + ":" + strings.Repeat("b", 39))
	f.Add(strings.Repeat("f", 1<<15+41) + "x123456789")
	f.Add(strings.Repeat("9", 1<<16+50))
	red := newRedactor(map[string]string{"TOKEN": "hunter2-secret", "SHORT": "abc"}, nil)
	redMany := new(byteSet)
	for i := range redMany {
		redMany[i] = uint8(i % 3 / 2)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, set := range []*byteSet{&noTriples, red.prefilter(), redMany} {
			gf, gh := scanText(s, set)
			wf, wh := scanTextRef(s, set)
			if gf != wf || gh != wh {
				t.Fatalf("scanText(%.80q) = %b, %v; the reference gives %b, %v", s, gf, gh, wf, wh)
			}
		}
		if got, want := featuresOf(s), scanTextRefFeatures(s); got != want {
			t.Fatalf("featuresOf(%.80q) = %b; the reference gives %b", s, got, want)
		}
	})
}

// TestTextFeaturesSeeEveryKeyword: the one scan of a string's features
// also stands for the format keywords' prefilter (redactor.pre), so every
// keyword of every format, in lower, upper and mixed case, at the start,
// inside and at the end of a text, must leave the text unclean wherever
// redact.MayHoldFormat says it may hold a format, and redaction of it must
// give what RedactString gives.
func TestTextFeaturesSeeEveryKeyword(t *testing.T) {
	red := newRedactor(map[string]string{"TOKEN": "hunter2-secret"}, nil)
	if red.prefilter(); !red.preFormats {
		t.Fatal("the formats' keywords cannot be told in the features' scan (a format without keywords, or a two-byte keyword that is not one of pairEQ, pairS): every string pays redact.MayHoldFormat's own scan")
	}
	seen, unclean := 0, 0
	for _, p := range redact.Patterns() {
		for _, k := range p.Keywords {
			mixed := []byte(k)
			for i := 0; i < len(mixed); i += 2 {
				mixed[i] = byte(unicode.ToUpper(rune(mixed[i])))
			}
			for _, kw := range []string{k, strings.ToUpper(k), string(mixed)} {
				for _, s := range []string{kw, "x " + kw, kw + " x", "zz" + kw + "0123456789abcdefABCDEF", "see " + kw, "hunter2-secret" + kw} {
					seen++
					_, clean := red.textFeatures(s)
					if may := redact.MayHoldFormat(s) || red.mayHoldDeclared(s); clean == may {
						t.Fatalf("textFeatures(%q) says clean %v; redact.MayHoldFormat or the declared value says %v (keyword %q of %s)", s, clean, may, k, p.Name)
					} else if !clean {
						unclean++
					}
					if got, want := red.text(s), redact.RedactString(s, red.creds); got != want {
						t.Fatalf("redactor on %q: %q, redact.RedactString gives %q", s, got, want)
					}
				}
			}
		}
	}
	if unclean < seen/2 {
		t.Fatalf("%d of %d texts holding a keyword were found to need redaction: the test checks little", unclean, seen)
	}
	// And the scan alone still tells ordinary texts clean.
	for _, s := range []string{"open", "PR_kw00000012", "2026-11-22T14:00:01Z", "fix-12", "Change 12 of the frobnicator"} {
		if _, hit := scanText(s, red.prefilter()); hit {
			t.Errorf("scanText(%q) finds a keyword's or a declared value's start in it: the prefilter sends it on to redaction", s)
		}
	}
}

// TestRewrittenStringsAreRedactedLast: a string a text part rewrote is
// found clean for the last redaction only where the scan of its new text
// finds no keyword or declared value (stage.rescan): a part that writes a
// token or a declared value, or joins a token's halves, has it redacted,
// in the streamed and the tree engine alike.
func TestRewrittenStringsAreRedactedLast(t *testing.T) {
	const token = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a"
	r := Builtins()
	for name, d := range map[string]Definition{
		"leak":     {Regex: `LEAK`, Replace: token},
		"declared": {Regex: `LEAK`, Replace: "hunter2-secret"},
		"join":     {Regex: `-B`, Replace: "B"},
	} {
		if err := r.Define(name, d); err != nil {
			t.Fatal(err)
		}
	}
	docs := map[string]string{
		"leak":     `{"a": "see LEAK here", "b": "LEAK"}`,
		"declared": `{"a": "see LEAK here", "b": "LEAK"}`,
		"join":     `{"c": "key ` + token[:22] + "-" + token[22:] + `"}`,
	}
	for name, doc := range docs {
		p, err := r.Pipeline([]string{"uuid", name}, Options{Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
		if err != nil {
			t.Fatal(err)
		}
		if p.stream == nil {
			t.Fatalf("%s: not streamed", name)
		}
		streamed, _ := p.JSON(NewState(), []byte(doc))
		tree, _ := treeJSON(p, NewState(), []byte(doc))
		for engine, out := range map[string]string{"stream": string(streamed), "tree": string(tree)} {
			if strings.Contains(out, "ghp_") || strings.Contains(out, "hunter2") || !strings.Contains(out, "[REDACTED]") {
				t.Errorf("%s, %s engine: %s", name, engine, out)
			}
		}
	}
}

// TestPrefixCandidate: prefixCandidate finds the first position, from a
// given one, where one of its prefixes starts, as a compare at every
// position does (it passes over the first bytes that no prefix's second
// byte follows): prefixes of one byte, of several first bytes, at the
// text's end, overlapping.
func TestPrefixCandidate(t *testing.T) {
	sets := [][]string{
		{"/tmp/", "/work/app", "/var/folders/"},
		{"/tmp/", "C:\\Temp\\", "ab"},
		{"/", "/tmp/"},
		{"x", "yz"},
	}
	texts := []string{"", "/", "//", "https://a/b/tmp/x", "see /tmp/a and /work/app/b", "/tm", "/tmp", "C:\\Temp\\x ab",
		"a/b/c", "yyz", "xy", "zz/var/folders/x", "/work/ap", "ab/tmp/", "a/"}
	for _, ps := range sets {
		at := prefixCandidate(ps)
		for _, s := range texts {
			for from := 0; from <= len(s); from++ {
				want := -1
			search:
				for i := from; i < len(s); i++ {
					for _, p := range ps {
						if strings.HasPrefix(s[i:], p) {
							want = i
							break search
						}
					}
				}
				if got := at(s, from); got != want {
					t.Errorf("prefixes %q in %q from %d: %d, want %d", ps, s, from, got, want)
				}
			}
		}
	}
}
