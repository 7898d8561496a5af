package har

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// FromGoVCR loads every go-vcr cassette under src (format 1 or 2; a file or
// a tree) and returns them as cassettes of adapter, without paths: the
// scenario is the file's path below src without its extension, slash
// separated, case kept (go-vcr names files after tests and subtests:
// `TestLogin/Should_work`). Format 1 is upgraded; bodies are kept byte for
// byte (nothing is decoded or re-encoded; Save chooses only how the bytes
// are quoted). A file holding a credential is loaded all the same: the
// caller redacts and scans them before anything is written.
func FromGoVCR(src, adapter string) ([]*cassettes.Cassette, error) {
	list, err := cassettes.LoadTree([]string{src}, cassettes.LoadOptions{SkipLeakScan: true})
	if err != nil {
		var ce *outcome.Error
		if errors.As(err, &ce) && ce.NextStep != "" {
			ce.NextStep = outcome.Command("cassette", "import", "govcr", src, "--adapter", adapter)
		}
		return nil, err
	}
	for _, c := range list {
		rel, err := filepath.Rel(src, c.Path)
		if err != nil || rel == "." {
			rel = filepath.Base(c.Path)
		}
		c.Scenario = filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		c.Adapter, c.Kind, c.Path = adapter, cfgschema.KindHTTP, ""
		c.Cassette, c.Version, c.Plain, c.Warnings = cassettes.SchemaVersion, cassettes.GoVCRVersion, false, nil
		for i := range c.Interactions {
			c.Interactions[i].ID = i
		}
	}
	return list, nil
}

// HiddenDirs lists, below src, the dot-directories (.fixtures, .cache)
// that hold go-vcr files (*.yaml, *.yml), as paths below src, each with
// how many: LoadTree skips them, as a project's cassettes directory skips
// its .git. Import says what it skipped, and how to import one (name it).
func HiddenDirs(src string) map[string]int {
	out := map[string]int{}
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return out
	}
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == src || !strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		n := 0
		_ = filepath.WalkDir(p, func(q string, f fs.DirEntry, err error) error {
			if err == nil && !f.IsDir() && (filepath.Ext(q) == ".yaml" || filepath.Ext(q) == ".yml") {
				n++
			}
			return nil
		})
		if n > 0 {
			rel, _ := filepath.Rel(src, p)
			out[rel] = n
		}
		return filepath.SkipDir
	})
	return out
}
