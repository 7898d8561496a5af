package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelThroughSymlink: a project reached through a symlinked directory
// gets the same report paths as through its real path.
func TestRelThroughSymlink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "proj", "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got := rel(real, filepath.Join(link, "proj", "cassettes", "a.yaml"))
	if got != "proj/cassettes/a.yaml" {
		t.Errorf("rel = %q, want proj/cassettes/a.yaml", got)
	}
}

// TestResolverAsRel: one resolver used for many paths (as a report of
// many cases uses it, each directory's symlinks resolved once) gives what
// rel gives for each: a file through a symlinked directory, a file that is
// itself a symlink (to its target, elsewhere in the project), a file that
// does not exist, a relative path, a file in the base and one outside it,
// the base and directories (the wants are what rel gave before it kept
// each directory's relative path).
func TestResolverAsRel(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	for _, d := range []string{"proj/cassettes", "proj/shared"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/cassettes/a.yaml", "proj/cassettes/c.yaml", "proj/shared/b.yaml", "top.yaml", "../outside.yaml"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "proj/shared/b.yaml"), filepath.Join(real, "proj/cassettes/b.yaml")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(link, "proj"))
	rs := newResolver()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(link, "proj/cassettes/a.yaml"), "proj/cassettes/a.yaml"},
		{filepath.Join(link, "proj/cassettes/b.yaml"), "proj/shared/b.yaml"}, // the symlink's target
		{filepath.Join(link, "proj/cassettes/gone.yaml"), "proj/cassettes/gone.yaml"},
		{"cassettes/a.yaml", "proj/cassettes/a.yaml"},
		{"cassettes/b.yaml", "proj/shared/b.yaml"},
		{"cassettes/c.yaml", "proj/cassettes/c.yaml"}, // a directory seen before
		{filepath.Join(link, "top.yaml"), "top.yaml"}, // in the base itself
		{filepath.Join(root, "outside.yaml"), "../outside.yaml"},
		{filepath.Join(link, "proj"), "proj"}, // a directory
		{link, "."},
		{root, ".."},
	} {
		if got := rs.rel(real, c.path); got != c.want {
			t.Errorf("resolver: rel(%s) = %q, want %q", c.path, got, c.want)
		}
		if got := rel(real, c.path); got != c.want {
			t.Errorf("rel(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}
