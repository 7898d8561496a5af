package demo_test

// End-to-end tests of the demo, run as a user would run it: the real
// cassette binary (built once), the demo's real side (the pet store built
// from real/petstore, the greet script) recorded by record.sh with curl
// through cassette's proxy, and the fakes built by verify from fakes/.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-demo-e2e-", &cassetteBin)) }

// newExample copies the demo's committed files (not .cassette/) into a
// temporary directory, with a go.mod of the demo's own import path so that
// verify can build the fakes there.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	return e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "fakes", "real", "cassettes"},
		Module:   "github.com/cassette-dev/cassette/examples/demo",
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "PETSTORE_") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
}

var scenarios = []string{"petstore/create-then-get", "petstore/create-then-list", "petstore/get-missing", "petstore/list-empty",
	"greet/bad-flag", "greet/hello", "greet/hello-json"}

// TestCommittedCassettesVerify is `make demo`: the committed cassettes are
// valid and both fakes answer them.
func TestCommittedCassettesVerify(t *testing.T) {
	e := newExample(t)
	e.Must(nil, cassetteBin, "validate")
	out := e.Must(nil, cassetteBin, "verify")
	for _, s := range scenarios {
		if !strings.Contains(out, "PASS  "+s) {
			t.Errorf("verify did not pass %s:\n%s", s, out)
		}
	}
	if code, reason := e.Summary(); code != 0 || reason != "" {
		t.Errorf("summary.json: exit %d, reason %q; want 0, none", code, reason)
	}
}

// TestRecordThenVerify re-records every cassette with record.sh from the
// real pet store (a fresh one: new ids, new dates, a port the kernel
// picks) and the greet script, then verifies the unchanged fakes against
// them: the normalizers alone make them equal. No token is written.
func TestRecordThenVerify(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (CI is set): .ci/run installs it")
		}
		t.Skip("curl is not installed: sudo apt-get install -y curl")
	}
	e := newExample(t)
	old := e2e.ReadFile(t, e.Path("cassettes/petstore/create-then-get.yaml"))
	if err := os.RemoveAll(e.Path("cassettes")); err != nil {
		t.Fatal(err)
	}
	const token = "demo-e2e-token-4f9c2a"
	_, errOut := e.MustBoth([]string{"PETSTORE_PORT=0", "PETSTORE_TOKEN=" + token}, "./record.sh")
	for _, s := range scenarios {
		if !strings.Contains(errOut, "recorded cassettes/"+s+".yaml") {
			t.Errorf("record.sh did not record %s:\n%s", s, errOut)
		}
	}
	now := e2e.ReadFile(t, e.Path("cassettes/petstore/create-then-get.yaml"))
	if now == old || strings.Contains(now, "127.0.0.1:8081") {
		t.Fatalf("create-then-get was not recorded again from the pet store record.sh started:\n%s", now)
	}
	for _, s := range scenarios {
		if data := e2e.ReadFile(t, e.Path("cassettes/"+s+".yaml")); strings.Contains(data, token) {
			t.Errorf("cassettes/%s.yaml holds the token", s)
		}
	}
	e.Must(nil, cassetteBin, "validate")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "7 passed, 0 failed") {
		t.Errorf("verify:\n%s", out)
	}
}

// TestFakeDriftFails is the README's "See a drift": a pet store fake that
// stores the tag wrong fails the cases that show it, each drift located by
// JSONPath and cassette line, with the next step that reproduces it; the
// other cases still pass.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/petstore/store/store.go", "Tag: in.Tag, CreatedAt", `Tag: in.Tag + "s", CreatedAt`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`FAIL  petstore/create-then-get`, `value drift at interactions[0].response.body $.tag: value changed (want "cat", got "cats")`,
		"(cassettes/petstore/create-then-get.yaml:", "FAIL  petstore/create-then-list", "PASS  petstore/get-missing", "PASS  greet/hello",
		"5 passed, 2 failed", "next: cassette verify --case petstore/create-then-get",
	} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	// The next step runs as printed, with cassette on PATH.
	path := "PATH=" + filepath.Dir(cassetteBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	if _, errOut, code := e.Run([]string{path}, "sh", "-c", "cassette verify --case petstore/create-then-get"); code != 1 {
		t.Errorf("the next step: exit %d, want 1 (the same drift)\n%s", code, errOut)
	}
}
