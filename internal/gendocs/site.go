package gendocs

import (
	"path"

	"github.com/spf13/cobra"
)

// Site renders every generated file, keyed by its path from the
// repository's root: the pages below docs/ and the JSON Schemas below
// schema/. src is the cassettes package's source directory (the schemas'
// descriptions are its doc comments and those of internal/cfgschema).
func Site(root *cobra.Command, src string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, p := range Commands(root) {
		files[path.Join("docs", CommandDir, name)] = p
	}
	for name, render := range map[string]func() ([]byte, error){
		"docs/troubleshooting.md":                 Troubleshooting,
		"docs/reference/generated/normalizers.md": Normalizers,
		"docs/reference/generated/presets.md":     Presets,
	} {
		p, err := render()
		if err != nil {
			return nil, err
		}
		files[name] = p
	}
	schemas, err := Schemas(src)
	if err != nil {
		return nil, err
	}
	for name, data := range schemas {
		files[path.Join("schema", name)] = data
		page, err := SchemaPage(name, data)
		if err != nil {
			return nil, err
		}
		files[path.Join("docs/reference/generated", schemaPages[name])] = page
	}
	return files, nil
}

// schemaPages are the reference pages of the schemas.
var schemaPages = map[string]string{"cassette.yaml.schema.json": "config.md", "cassette.schema.json": "cassette.md"}
