package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// writeByEncoding is Write without its pass of the usual shape: every
// answer encoded by encoding/json and redacted whole.
func writeByEncoding(k *Checker, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return k.red.Bytes(b.Bytes())
}

// FuzzWriteAgreesWithEncoding: Write's hand-written pass (appendPass, and
// the values-only redaction when the id and file hold no keyword) writes
// the bytes encoding/json and the whole redaction write, for any result
// (a fast path too wide, or a keyword it misses, differs).
func FuzzWriteAgreesWithEncoding(f *testing.F) {
	const token = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"
	f.Add("echo/case-00001", "cassettes/echo/case-00001.yaml", 4, false, "pass", "", false, false)
	f.Add("greet/hello", "cassettes/greet/hello.yaml", 12, true, "pass", "", false, false)
	f.Add("greet/"+token, "cassettes/greet/x.yaml", 1, false, "pass", "", false, false)
	f.Add("greet/hello", "cassettes/decl4red-gr33ting-value.yaml", 1, false, "pass", "", false, false)
	f.Add("greet/AKIAIOSFODNN7EXAMPLE", "x/password=hunter22.yaml", 1, false, "pass", "", false, false)
	f.Add("a\"b", "é.yaml", -3, false, "pass", "", false, false)
	f.Add("a<b>&", "c\u2028\x7f", 0, false, "pass", "", false, false)
	f.Add("greet/hello", "cassettes/greet/hello.yaml", 4, false, "fail", "drifted", true, false)
	f.Add("greet/hello", "cassettes/greet/hello.yaml", 4, false, "pass", "a message", false, true)
	f.Add("greet/hello", "cassettes/greet/hello.yaml", 4, false, "pass", "", false, true)
	f.Fuzz(func(t *testing.T, id, file string, line int, quarantined bool, status, message string, drift, nilDrifts bool) {
		k := &Checker{Options: verify.Options{Credentials: map[string]string{"GREETING": "decl4red-gr33ting-value"}}}
		r := Result{Type: "result", ID: id, File: file, Line: line, Status: verdict.Status(status), Message: message,
			Quarantined: quarantined, Drifts: []verdict.Drift{}}
		if drift {
			r.Drifts = append(r.Drifts, verdict.Drift{Line: line})
		}
		if nilDrifts {
			r.Drifts = nil
		}
		var got bytes.Buffer
		if err := k.Write(&got, r); err != nil {
			t.Fatal(err)
		}
		if want := writeByEncoding(k, r); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("Write(%+v):\n%s\nencoding/json and Bytes:\n%s", r, got.Bytes(), want)
		}
	})
}

// TestPassTemplateHoldsNoKeyword: what appendPass writes around the id and
// the file holds no keyword of a known format, whatever the line, and no
// keyword holds a quote, so a keyword in a pass's answer is in its id or
// its file (which Write tests with HoldsKeyword): the formats' scan of
// the rest would find nothing.
func TestPassTemplateHoldsNoKeyword(t *testing.T) {
	kws, all := redact.FormatKeywords()
	if !all {
		t.Fatal("a format has no keyword: HoldsKeyword is true of every text, and Write redacts every answer whole")
	}
	for _, kw := range kws {
		if strings.Contains(kw, `"`) {
			t.Errorf("keyword %q holds a quote: a keyword may span a pass's id and the bytes around it", kw)
		}
		if strings.Trim(kw, ":,-0123456789") == "" {
			t.Errorf("keyword %q may be in a pass's `:LINE,`", kw)
		}
	}
	for _, q := range []bool{false, true} {
		b, ok := appendPass(nil, &Result{Type: "result", Status: verdict.StatusPass, Line: -1234567890, Quarantined: q, Drifts: []verdict.Drift{}})
		if !ok {
			t.Fatal("appendPass refused an empty pass")
		}
		// Each run between quotes, the line's run apart.
		for _, run := range strings.Split(string(b), `"`) {
			if strings.HasPrefix(run, ":-") {
				continue
			}
			if redact.HoldsKeyword(run) {
				t.Errorf("the pass's %q holds a keyword", run)
			}
		}
		if redact.HoldsKeyword(string(b)) {
			t.Errorf("the pass %s holds a keyword", b)
		}
	}
	if !redact.HoldsKeyword("ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u") {
		t.Error("HoldsKeyword is false of a GitHub token")
	}
}

// FuzzListingAgreesWithEncoding: appendListing writes the bytes
// encoding/json writes, for CLI cases of any strings (and nil slices),
// and for the cases it leaves to encoding/json (a quarantine entry, an
// HTTP case).
func FuzzListingAgreesWithEncoding(f *testing.F) {
	f.Add("cases", "cassette.yaml", "/tmp/p", "echo/case-00001", "case-00001", "cassettes/echo/case-00001.yaml", 4, "echo", "hello\x00case-00001", "", "/tmp/p", uint8(0))
	f.Add("", "cassette.yaml", "/tmp/p", "git/log", "log", "cassettes/git/log.yaml", 12, "git", "log\x00--oneline", "HOME\x00GIT_DIR", "/tmp/p/repo", uint8(1))
	f.Add("cases", "c.yaml", "/tmp/é \"q\"", "a<b>&\u2028", "\x7f\xff", "\t\n", -1, "", "", "", "", uint8(2|4|8))
	f.Add("cases", "c.yaml", "/tmp/p", "x", "y", "z", 0, "cmd", "", "", "", uint8(16|32|64|128))
	f.Fuzz(func(t *testing.T, typ, config, dir, id, scenario, file string, line int, command, args, env, cliDir string, flags uint8) {
		split := func(s string, isNil bool) []string {
			if isNil {
				return nil
			}
			if s == "" {
				return []string{}
			}
			return strings.Split(s, "\x00")
		}
		in := &CLIInput{Command: command, Args: split(args, flags&2 != 0), Env: split(env, flags&4 != 0), Dir: cliDir}
		if flags&1 != 0 {
			stdin := scenario + "\n"
			in.Stdin = &stdin
		}
		if flags&8 != 0 {
			in.StdinBase64 = "/w=="
		}
		c := Case{ID: id, Adapter: "echo", Scenario: scenario, Kind: "cli", File: file, Line: line, CLI: in}
		l := &Listing{Type: typ, Protocol: Version, Config: config, Dir: dir, Cases: []Case{c, c}}
		switch {
		case flags&16 != 0:
			l.Cases[1].Quarantine = &Quarantine{Category: "flaky", Owner: "ada", Reason: scenario, Expires: "2027-01-01"}
		case flags&32 != 0:
			l.Cases[1].CLI, l.Cases[1].Kind = nil, "http"
			l.Cases[1].HTTP = &HTTPInput{Requests: []Request{{Method: "GET", URL: "https://x/" + id, Target: "/" + id}}}
		case flags&64 != 0:
			l.Cases[1].CLI = nil
		}
		if flags&128 != 0 {
			l.Cases = nil
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
		var scratch bytes.Buffer
		if got := appendListing(nil, l, &scratch); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("appendListing:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	})
}
