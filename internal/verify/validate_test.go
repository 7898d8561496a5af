package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestSelect: a --case is its id exactly (its dots and slashes are no
// pattern), and a --run that does not compile is an error.
func TestSelect(t *testing.T) {
	sel, err := Select(nil, "", []string{"shop/v1.list"})
	if err != nil || !sel.Run.MatchString("shop/v1.list") || sel.Run.MatchString("shop/v1xlist") || sel.Run.MatchString("shop/v1.list2") {
		t.Fatalf("--case shop/v1.list: %v, %v", sel.Run, err)
	}
	if _, err := Select(nil, "shop/(", nil); err == nil {
		t.Fatal("--run shop/( compiled")
	}
}

// TestValidateWithoutTheProcess: `cassette validate` of a project whose
// replay matching does not compile names the config's line, before any
// cassette is read.
func TestValidateWithoutTheProcess(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cassette.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\nadapters:\n  shop:\n    kind: http\n    fake: {base_url: \"http://127.0.0.1:1\"}\n    match:\n      ignore_json: [\"$[\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, problems, err := Validate(p, nil, p.LoadOptions(nil))
	ce := outcome.AsError(err)
	if problems != nil || ce.Reason != outcome.ECfgParse || len(ce.Problems) != 1 || ce.Problems[0].Field != "adapters.shop.match" || ce.Problems[0].Line == 0 {
		t.Fatalf("Validate: %+v (problems %v), want E_CFG_PARSE naming adapters.shop.match and its line", ce, problems)
	}
}
