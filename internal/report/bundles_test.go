package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestValidateBundles: a bundle is validated as it is named; a
// --bundle-dir root has every bundle below it validated, in order; a
// directory with none is an error; a broken bundle fails the check with
// the command that writes a fresh one under its root.
func TestValidateBundles(t *testing.T) {
	root := t.TempDir()
	first, second := twoBundles(t, root)
	one, err := ValidateBundles(os.DirFS(first), first+"/")
	if err != nil || one.Root || len(one.Bundles) != 1 || one.Bundles[0] != first+"/" || one.Err() != nil {
		t.Fatalf("one bundle: %+v, %v; want it valid, named as given", one, err)
	}
	all, err := ValidateBundles(os.DirFS(root), root)
	if err != nil || !all.Root || strings.Join(all.Bundles, " ") != first+" "+second || all.Err() != nil {
		t.Fatalf("the root: %+v, %v; want both bundles, valid", all, err)
	}
	if _, err := ValidateBundles(os.DirFS(t.TempDir()), "empty"); outcome.AsError(err).Reason != outcome.EBundleInvalid {
		t.Errorf("a directory without a bundle: %v; want E_BUNDLE_INVALID", err)
	}
	if err := os.Remove(filepath.Join(second, "repro.txt")); err != nil {
		t.Fatal(err)
	}
	broken, err := ValidateBundles(os.DirFS(second), second)
	if err != nil {
		t.Fatal(err)
	}
	ce := outcome.AsError(broken.Err())
	if ce.Reason != outcome.EBundleInvalid || len(ce.Problems) == 0 || ce.NextStep != outcome.Command("cassette", "verify", "--bundle-dir", root) {
		t.Errorf("a broken bundle: %v (next %q); want E_BUNDLE_INVALID, its problems and a fresh bundle under %s", broken.Err(), ce.NextStep, root)
	}
}

// TestPublishedWriteWhere: the files are named in the order a reader
// opens them, the bundle on a line of its own.
func TestPublishedWriteWhere(t *testing.T) {
	var b strings.Builder
	p := &Published{Files: Files{FileSummary: nil, FileJUnit: nil, FileHTML: nil, "zz.txt": nil}, Bundle: "b/s/1"}
	p.WriteWhere(&b, "out")
	if want := "reports: out/{report.html,junit.xml,summary.json,zz.txt}\nbundle: b/s/1\n"; b.String() != want {
		t.Errorf("WriteWhere:\n got %q\nwant %q", b.String(), want)
	}
}

// twoBundles writes two bundles of one run under root, in the same second.
func twoBundles(t *testing.T, root string) (first, second string) {
	t.Helper()
	run := &Run{Tool: Tool{Name: "cassette", Version: "1"}, Command: "verify", Suite: "s", Started: t0, Finished: t0}
	first, err := WriteBundle(root, run, BundleFiles{})
	if err != nil {
		t.Fatal(err)
	}
	if second, err = WriteBundle(root, run, BundleFiles{}); err != nil {
		t.Fatal(err)
	}
	return first, second
}
