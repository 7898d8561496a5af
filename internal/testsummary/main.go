package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is the skips of one reason in one package.
type skip struct {
	pkg, reason string
	n           int
}

// logLine is a line a test logged: "    file_test.go:42: message".
var logLine = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)

// run copies the usual `go test` output of in to out, then the skip line,
// and returns the exit code.
func run(in io.Reader, out io.Writer) int {
	buf := map[string][]string{} // package + test → its output so far
	var skips []*skip
	failed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(out, sc.Text()) // not an event: vet, a build error
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output" || e.Action == "output" && e.Test == "" && e.Output != "PASS\n":
			fmt.Fprint(out, e.Output) // "ok …", "FAIL …" (a passing package's PASS is -v's)
		case e.Action == "output" && !strings.HasPrefix(e.Output, "=== "): // RUN, PAUSE, CONT: -v's
			buf[key] = append(buf[key], e.Output)
		case e.Action == "fail" || e.Action == "build-fail":
			failed = failed || e.Test == ""
			fmt.Fprint(out, strings.Join(buf[key], ""))
			delete(buf, key)
		case e.Action == "skip" && e.Test != "":
			skips = add(skips, short(e.Package), reason(buf[key]))
			delete(buf, key)
		case e.Action == "pass" || e.Action == "skip":
			delete(buf, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testsummary: %v\n", err)
		failed = true
	}
	fmt.Fprintln(out, summary(skips))
	if failed {
		return 1
	}
	return 0
}

// reason is what a skipped test said last.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if m := logLine.FindStringSubmatch(strings.TrimRight(lines[i], "\n")); m != nil {
			return m[1]
		}
	}
	return "no reason given"
}

func add(skips []*skip, pkg, reason string) []*skip {
	for _, s := range skips {
		if s.pkg == pkg && s.reason == reason {
			s.n++
			return skips
		}
	}
	return append(skips, &skip{pkg: pkg, reason: reason, n: 1})
}

// short is a package path without the module's prefix.
func short(pkg string) string {
	if i := strings.Index(pkg, "/cassette/"); i >= 0 {
		return pkg[i+len("/cassette/"):]
	}
	return pkg
}

// summary is the one line: how many tests were skipped, each reason with
// where and how often, in package order.
func summary(skips []*skip) string {
	if len(skips) == 0 {
		return "skipped: nothing (every test ran)"
	}
	slices.SortStableFunc(skips, func(a, b *skip) int { return strings.Compare(a.pkg, b.pkg) })
	total := 0
	parts := make([]string, len(skips))
	for i, s := range skips {
		total += s.n
		parts[i] = fmt.Sprintf("%s: %d, %s", s.pkg, s.n, s.reason)
	}
	return fmt.Sprintf("skipped %d test(s), so not covered: %s", total, strings.Join(parts, "; "))
}
