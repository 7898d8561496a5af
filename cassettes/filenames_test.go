package cassettes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestFileNameRule: in a project a cassette file whose name breaks the name
// rule is refused though its `scenario:` keeps it (the name is printed and
// carried by git), at its file and the scenario's line, exit 2, with a
// `git mv` to a name that keeps the rule as the next step; that command,
// run by a shell as printed, renames the file and nothing else, and the
// renamed file loads. A name that keeps the rule (go-vcr's TestFoo_Bar)
// loads, and outside a project names are taken as they come.
func TestFileNameRule(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, tc := range []struct{ name, renamed string }{
		{"x$(touch FORGED) ;", "x-touch-FORGED.yaml"},
		{"a\nnext: touch FORGED\nb", "a-next-touch-FORGED-b.yaml"},
		{"it's ok (v2)", "it-s-ok-v2.yaml"},
		{"x..y", "x.y.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := testConfig(t)
			cfg.Dir = root
			dir := filepath.Join(root, "cassettes", "github")
			os.MkdirAll(dir, 0o755)
			bad := filepath.Join(dir, tc.name+".yaml")
			if err := os.WriteFile(bad, []byte(goodHTTP), 0o644); err != nil {
				t.Skipf("this file system cannot hold the name: %v", err)
			}
			for _, run := range []func() error{
				func() error { _, err := Load(bad, LoadOptions{Config: cfg, Normalizers: builtins}); return err },
				func() error {
					_, err := LoadTree([]string{filepath.Join(root, "cassettes")}, LoadOptions{Config: cfg, Normalizers: builtins})
					return err
				},
			} {
				ce := outcome.AsError(run())
				if ce == nil || ce.Exit() != outcome.ExitUser || len(ce.Problems) != 1 {
					t.Fatalf("err = %v, want one problem, exit 2", ce)
				}
				p := ce.Problems[0]
				if p.File != bad || p.Line != 4 || !strings.Contains(p.Message, "is not a valid name") || strings.ContainsAny(p.String(), "\n") {
					t.Errorf("problem = %q (line %d), want the file, the scenario's line 4, on one line", p.String(), p.Line)
				}
				want := outcome.Command("git", "mv", "--", bad, filepath.Join(dir, tc.renamed))
				if ce.NextStep != want {
					t.Errorf("next step = %q, want %q", ce.NextStep, want)
				}
			}
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			git("add", "-A")
			_, err := Load(bad, LoadOptions{Config: cfg, Normalizers: builtins})
			sh := exec.Command("sh", "-c", outcome.AsError(err).NextStep)
			sh.Dir = root
			if out, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("the next step failed: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(root, "FORGED")); err == nil {
				t.Error("the next step ran a command the file name holds")
			}
			if _, err := Load(filepath.Join(dir, tc.renamed), LoadOptions{Config: cfg, Normalizers: builtins}); err != nil {
				t.Errorf("the renamed file does not load: %v", err)
			}
			// Outside a project a go-vcr file is taken as it comes (but
			// for control characters: relativeName).
			if err := os.WriteFile(bad, []byte(plainGoVCR), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(bad, LoadOptions{Normalizers: builtins}); err != nil && !strings.Contains(tc.name, "\n") {
				t.Errorf("without a project: %v", err)
			}
		})
	}
}

// TestDuplicateScenario: two files of one adapter naming the same scenario
// would run one case twice: the second is refused (exit 2), naming both
// files, and the first is kept; `x.yaml` beside `x.yml` (go-vcr files) is
// the same. The same file named twice is loaded once, without a problem.
func TestDuplicateScenario(t *testing.T) {
	root := t.TempDir()
	cfg := testConfig(t)
	cfg.Dir = root
	dir := filepath.Join(root, "cassettes", "github")
	os.MkdirAll(dir, 0o755)
	first, second := filepath.Join(dir, "list-pulls.yaml"), filepath.Join(dir, "copy.yaml")
	os.WriteFile(first, []byte(goodHTTP), 0o644)
	os.WriteFile(second, []byte(goodHTTP), 0o644)
	os.WriteFile(filepath.Join(dir, "TestX.yaml"), []byte(plainGoVCR), 0o644)
	os.WriteFile(filepath.Join(dir, "TestX.yml"), []byte(plainGoVCR), 0o644)
	list, err := LoadTree([]string{filepath.Join(root, "cassettes")}, LoadOptions{Config: cfg, Normalizers: builtins})
	ce := outcome.AsError(err)
	if ce == nil || ce.Exit() != outcome.ExitUser || len(ce.Problems) != 2 {
		t.Fatalf("err = %v, want two problems, exit 2", err)
	}
	// Discover sorts: TestX.yaml, TestX.yml, copy.yaml, list-pulls.yaml.
	for i, pair := range [][2]string{{filepath.Join(dir, "TestX.yml"), filepath.Join(dir, "TestX.yaml")}, {first, second}} {
		p := ce.Problems[i]
		if p.File != pair[0] || !strings.Contains(p.Message, "is also the scenario of "+pair[1]) {
			t.Errorf("problem %d = %s, want %s naming %s", i, p.String(), pair[0], pair[1])
		}
	}
	if want := outcome.Command("diff", "-u", "--", filepath.Join(dir, "TestX.yaml"), filepath.Join(dir, "TestX.yml")); ce.NextStep != want {
		t.Errorf("next step = %q, want %q", ce.NextStep, want)
	}
	if len(list) != 2 {
		t.Errorf("%d cassettes kept, want the first of each pair", len(list))
	}
	list, err = LoadTree([]string{first, first}, LoadOptions{Config: cfg, Normalizers: builtins})
	if err != nil || len(list) != 1 {
		t.Errorf("the same file twice: %d cassettes, %v", len(list), err)
	}
}
