package importer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// helperEnv makes this test binary the importer that TestImportKilled
// kills: it imports realGoVCR into $IMPORT_DIR and, once the first
// cassette is staged, says so on the FIFO $IMPORT_READY and waits to die.
const helperEnv = "IMPORT_HELPER_DIR"

func TestImportHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("a helper process: TestImportKilled runs it and kills it")
	}
	staged := func(int) {
		_ = os.WriteFile(os.Getenv("IMPORT_READY"), []byte("staged\n"), 0o600)
		select {} // until SIGKILL
	}
	_, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: dir, staged: staged})
	t.Fatalf("the import ended: %v", err)
}

// TestImportKilled: an import killed (SIGKILL) in the middle leaves the
// adapter's directory as it was, new or holding cassettes, with no temp
// file; the same import then runs without --force and clears what the
// killed one staged.
func TestImportKilled(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(map[bool]string{false: "new adapter", true: "adapter with cassettes"}[existing], func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "cassettes")
			keep := filepath.Join(dir, "real", "kept.yaml")
			if existing {
				os.MkdirAll(filepath.Dir(keep), 0o755)
				os.WriteFile(keep, []byte("version: 2\ninteractions: []\n"), 0o644)
			}
			before := listing(t, root)
			ready := filepath.Join(t.TempDir(), "ready")
			mkfifo(t, ready)
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportHelperProcess$")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir, "IMPORT_READY="+ready)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.ReadFile(ready); err != nil { // the first cassette is staged
				t.Fatal(err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if got := listing(t, root); got != before {
				t.Fatalf("a killed import changed the project:\nbefore:\n%s\nafter:\n%s", before, got)
			}
			res, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: dir})
			if err != nil {
				t.Fatalf("the same import again, without --force: %v", err)
			}
			if len(res.Saved) != 6 {
				t.Errorf("saved %d cassettes, want 6", len(res.Saved))
			}
			if _, err := os.Stat(keep); existing && err != nil {
				t.Errorf("the adapter's own cassette is gone: %v", err)
			}
			if left, _ := os.ReadDir(stagingRoot(root)); len(left) != 0 {
				t.Errorf("staging copies left: %v", left)
			}
		})
	}
}

// listing is every file and directory under root but .cassette (locks,
// staging), each with its size.
func listing(t *testing.T, root string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".cassette" {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+fi.Mode().String()+" "+strings.Repeat("#", int(min(fi.Size(), 64))))
		return nil
	})
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestImportInterrupted: an import whose context ends (SIGINT or SIGTERM
// in `cassette import`) stops at the next cassette with E_INTERRUPTED and
// writes nothing, into a new adapter or one with cassettes.
func TestImportInterrupted(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cassettes")
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	os.WriteFile(filepath.Join(dir, "real", "kept.yaml"), []byte("version: 2\ninteractions: []\n"), 0o644)
	before := listing(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ImportContext(ctx, Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: dir, staged: func(int) { cancel() }})
	if ce := asError(t, err); ce.Reason != outcome.EInterrupted || ce.NextStep != "cassette import govcr "+realGoVCR+" --adapter real" {
		t.Fatalf("got %v (next: %s), want E_INTERRUPTED and the same import", err, ce.NextStep)
	}
	if got := listing(t, root); got != before {
		t.Errorf("an interrupted import changed the project:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	if left, _ := os.ReadDir(stagingRoot(root)); len(left) != 0 {
		t.Errorf("staging copies left: %v", left)
	}
}

// TestImportAddsToAnAdapter: a second import into an adapter keeps its
// cassettes (the exchanged directory holds them), and --force replaces
// only the ones it brings.
func TestImportAddsToAnAdapter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cassettes")
	src := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(realGoVCR, "etcd-f0c6.yaml"))
	os.WriteFile(filepath.Join(src, "one.yaml"), data, 0o644)
	if _, err := Import(Options{From: GoVCR, Source: src, Adapter: "real", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "real", "*.yaml"))
	if len(names) != 7 {
		t.Errorf("the adapter holds %d cassettes, want 7: %v", len(names), names)
	}
}

// TestImportRenamesWildNames: scenarios named as git, file systems or
// shells cannot all carry are imported under names that keep the rule,
// the same ones each time, and the result says so; names that collide
// get their hash.
func TestImportRenamesWildNames(t *testing.T) {
	src := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(realGoVCR, "etcd-f0c6.yaml"))
	for _, name := range []string{"it's ok (v2)", "x..y", "api.lock", "a b", "a-b", "$(touch PWNED)", "Test/#01"} {
		p := filepath.Join(src, filepath.FromSlash(name)+".yaml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var first []Rename
	for i := range 2 {
		res, err := Import(Options{From: GoVCR, Source: src, Adapter: "wild", Dir: filepath.Join(t.TempDir(), "cassettes")})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Saved {
			if !cassettes.ValidName(c.Scenario) || filepath.Base(c.Path) != filepath.Base(c.Scenario)+".yaml" {
				t.Errorf("imported as %q at %s", c.Scenario, c.Path)
			}
			if _, err := cassettes.Load(c.Path, cassettes.LoadOptions{Config: &cfgschema.Config{Dir: filepath.Dir(filepath.Dir(res.Dir)), Adapters: map[string]*cfgschema.Adapter{"wild": {Kind: cfgschema.KindHTTP}}}}); err != nil {
				t.Errorf("the imported cassette does not load in a project: %v", err)
			}
		}
		if i == 0 {
			first = res.Renamed
			continue
		}
		if !slices.Equal(first, res.Renamed) {
			t.Errorf("renamed differently the second time:\n%v\n%v", first, res.Renamed)
		}
	}
	want := map[string]string{"it's ok (v2)": "it-s-ok-v2", "x..y": "x.y", "api.lock": "api-lock", "$(touch PWNED)": "touch-PWNED", "Test/#01": "Test/01"}
	got := map[string]string{}
	for _, r := range first {
		got[r.From] = r.To
	}
	for from, to := range want {
		if got[from] != to {
			t.Errorf("%q renamed to %q, want %q", from, got[from], to)
		}
	}
	if to := got["a b"]; !strings.HasPrefix(to, "a-b-") || len(to) != len("a-b-")+8 {
		t.Errorf("a b, colliding with a-b, renamed to %q", to)
	}
	if _, ok := got["a-b"]; ok {
		t.Errorf("a-b, a valid name, was renamed")
	}
}

// TestImportHARIsBounded: a HAR that is a FIFO is refused at once (no
// writer ever opens it: the import would hang), and one over the size
// bound is refused before it is read.
func TestImportHARIsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "session.har")
	mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := Import(Options{From: HAR, Source: fifo, Dir: filepath.Join(dir, "cassettes")})
		done <- err
	}()
	select {
	case err := <-done:
		if ce := asError(t, err); ce.Reason != outcome.EUsage || !strings.Contains(ce.Message, "a named pipe, not a regular file") {
			t.Errorf("a FIFO: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("import har hangs on a FIFO")
	}
	big := filepath.Join(dir, "big.har")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, cassettes.MaxFileBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_, err := Import(Options{From: HAR, Source: big, Dir: filepath.Join(dir, "cassettes")})
	if ce := asError(t, err); ce.Reason != outcome.EUsage || !strings.Contains(ce.Message, "more than") {
		t.Errorf("a HAR over the bound: %v", err)
	}
}
