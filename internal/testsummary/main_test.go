package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummary runs a real `go test -json` on a small package whose tests
// pass, fail, log and skip (one of them a subtest), and checks what make
// test shows: the usual lines, the failing test's output, one line naming
// each skip reason with its package and count, and the exit code.
func TestSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := writeFile(filepath.Join(dir, name), s); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/cassette/sample\n\ngo 1.26\n")
	write("x_test.go", `package sample
import "testing"
func TestA(t *testing.T) { t.Skip("curl is not installed") }
func TestB(t *testing.T) { t.Run("sub", func(t *testing.T) { t.Skip("curl is not installed") }) }
func TestC(t *testing.T) { t.Log("hello"); t.Skipf("prometheus is not installed: %s", "apt-get install prometheus") }
func TestD(t *testing.T) { t.Log("quiet") }
func TestE(t *testing.T) { t.Error("bad thing") }
`)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GOWORK=off", "GOFLAGS=")
	events, _ := cmd.Output() // exit 1: TestE fails
	var out bytes.Buffer
	if code := run(bytes.NewReader(events), &out); code != 1 {
		t.Errorf("exit %d, want 1 (a test failed)", code)
	}
	got := out.String()
	for _, want := range []string{"bad thing", "--- FAIL: TestE", "FAIL\texample.com/cassette/sample",
		"skipped 3 test(s), so not covered: sample: 2, curl is not installed; sample: 1, prometheus is not installed: apt-get install prometheus\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"hello", "quiet", "=== RUN"} {
		if strings.Contains(got, not) {
			t.Errorf("output shows %q, which go test without -v does not:\n%s", not, got)
		}
	}

	out.Reset()
	pass := `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}` + "\n" + `{"Action":"pass","Package":"p"}` + "\n"
	if code := run(strings.NewReader(pass), &out); code != 0 || !strings.HasSuffix(out.String(), "ok  \tp\t0.1s\nskipped: nothing (every test ran)\n") {
		t.Errorf("a green run without skips: exit %d\n%s", code, out.String())
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
