package report

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// BundleCheck is what `cassette bundle validate DIR` found: the bundle at
// DIR or, when DIR is a --bundle-dir root, every bundle below it
// (DIR/<suite>/<timestamp>/), each with its problems.
type BundleCheck struct {
	Dir string
	// Root says that Dir holds no bundle.json, but bundles below it.
	Root bool
	// Bundles are the bundles' directories, named from Dir, in order;
	// Problems[i] are those of Bundles[i], none for a valid one.
	Bundles  []string
	Problems [][]outcome.Problem
}

// ValidateBundles validates the bundle at dir, or every bundle below it
// when it is a --bundle-dir root; fsys is dir as the command opens it
// (os.DirFS(dir)). A dir that holds no bundle is an error.
func ValidateBundles(fsys fs.FS, dir string) (*BundleCheck, error) {
	c := &BundleCheck{Dir: dir}
	rels := []string{"."}
	if _, err := fs.Stat(fsys, "bundle.json"); err != nil {
		found, _ := fs.Glob(fsys, "*/bundle.json")
		more, _ := fs.Glob(fsys, "*/*/bundle.json")
		rels = nil
		for _, f := range append(found, more...) {
			rels = append(rels, path.Dir(f))
		}
		sort.Strings(rels)
		if len(rels) == 0 {
			return nil, &outcome.Error{Reason: outcome.EBundleInvalid,
				Message:  fmt.Sprintf("%s holds no bundle: neither %s nor any DIR/<suite>/<timestamp>/bundle.json", dir, filepath.Join(dir, "bundle.json")),
				NextStep: outcome.Command("cassette", "verify", "--bundle-dir", dir)}
		}
		c.Root = true
	}
	for _, rel := range rels {
		sub, err := fs.Sub(fsys, rel)
		if err != nil {
			return nil, err
		}
		b := dir // as given: the bundle at dir is named as the user named it
		if rel != "." {
			b = filepath.Join(dir, filepath.FromSlash(rel))
		}
		c.Bundles = append(c.Bundles, b)
		c.Problems = append(c.Problems, ValidateBundle(sub, b))
	}
	return c, nil
}

// Err is the check's outcome: nil when every bundle is valid, else one
// error with every problem and the command that writes a fresh bundle.
func (c *BundleCheck) Err() error {
	var probs []outcome.Problem
	bad := 0
	for _, p := range c.Problems {
		if len(p) > 0 {
			bad++
			probs = append(probs, p...)
		}
	}
	if bad == 0 {
		return nil
	}
	return &outcome.Error{Reason: outcome.EBundleInvalid, Message: fmt.Sprintf("%d of %d bundle(s) below %s have problems (%d in all)", bad, len(c.Bundles), c.Dir, len(probs)),
		Problems: probs, NextStep: outcome.Command("cassette", "verify", "--bundle-dir", c.root())}
}

// root is the --bundle-dir the next step writes a fresh bundle under: Dir
// itself when it is a root; for one bundle, the root it was written under
// while it sits there (root/<suite>/<timestamp>), else the bundle's own
// directory (one copied or downloaded elsewhere: the directories above it
// have nothing to do with cassette).
func (c *BundleCheck) root() string {
	if !c.Root {
		if root, ok := BundleRoot(c.Dir); ok {
			return root
		}
	}
	return c.Dir
}
