package gendocs

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/cassettes"
)

const repo = "../.."

// compile compiles one of the committed schemas under schema/.
func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(repo, "schema", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaBase+name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaBase + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance reads a YAML file as the JSON value a schema validates (YAML
// times and !!binary become strings, as JSON has them).
func instance(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSchemasAcceptTheRepository: every cassette.yaml and every cassette
// of the repository (the examples', the tests' fixtures) is valid against
// the schema the repository ships.
func TestSchemasAcceptTheRepository(t *testing.T) {
	config, cassette := compile(t, "cassette.yaml.schema.json"), compile(t, "cassette.schema.json")
	var configs, tapes int
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repo && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "site" || name == "dist" || name == "fuzz" || name == "invalid") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".yaml") {
			return nil
		}
		switch {
		case name == "cassette.yaml":
			configs++
			if err := config.Validate(instance(t, path)); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		case strings.Contains(filepath.ToSlash(path), "/cassettes/"):
			tapes++
			if err := cassette.Validate(instance(t, path)); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if configs < 8 || tapes < 40 {
		t.Errorf("validated only %d configs and %d cassettes", configs, tapes)
	}
}

// TestSchemasRejectTheInvalidFixtures: each file of schema/testdata/invalid
// is refused by the schema and by the strict loader alike.
func TestSchemasRejectTheInvalidFixtures(t *testing.T) {
	config, cassette := compile(t, "cassette.yaml.schema.json"), compile(t, "cassette.schema.json")
	files, _ := filepath.Glob(filepath.Join(repo, "schema", "testdata", "invalid", "*.yaml"))
	if len(files) < 4 {
		t.Fatalf("only %d invalid fixtures", len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, ".cassette.yaml") {
			if config.Validate(instance(t, path)) == nil {
				t.Errorf("%s: the config schema accepts it", path)
			}
			if _, err := cassettes.ParseConfig(path, data, cassettes.ConfigOptions{}); err == nil {
				t.Errorf("%s: the loader accepts it", path)
			}
			continue
		}
		if cassette.Validate(instance(t, path)) == nil {
			t.Errorf("%s: the cassette schema accepts it", path)
		}
		if _, err := cassettes.Parse(path, data, cassettes.LoadOptions{}); err == nil {
			t.Errorf("%s: the loader accepts it", path)
		}
	}
}
