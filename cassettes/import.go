package cassettes

import (
	"errors"
	"path/filepath"
	"strings"
)

// ImportGoVCR loads every go-vcr cassette under src (format 1 or 2; a
// file or a tree) and returns them as cassettes of adapter, in the layout
// cassettes/<adapter>/<scenario>.yaml under dest: the scenario is the
// file's path below src without its extension, case kept (go-vcr names
// files after tests and subtests: `TestLogin/Should_work`). Format 1 is
// upgraded; bodies are kept byte for byte (nothing is decoded or
// re-encoded; Save chooses only how the bytes are quoted). Nothing is
// written: the caller saves them.
func ImportGoVCR(src, dest, adapter string) ([]*Cassette, error) {
	list, err := LoadTree([]string{src}, LoadOptions{})
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && ce.NextStep != "" {
			ce.NextStep = Command("cassette", "import", "govcr", src, "--adapter", adapter)
		}
		return nil, err
	}
	for _, c := range list {
		rel, err := filepath.Rel(src, c.Path)
		if err != nil || rel == "." {
			rel = filepath.Base(c.Path)
		}
		scenario := filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		c.Adapter, c.Scenario, c.Kind = adapter, scenario, KindHTTP
		c.Cassette, c.Version, c.Plain, c.Warnings = SchemaVersion, GoVCRVersion, false, nil
		c.Path = filepath.Join(dest, adapter, filepath.FromSlash(scenario)+".yaml")
		for i := range c.Interactions {
			c.Interactions[i].ID = i
		}
	}
	return list, nil
}
