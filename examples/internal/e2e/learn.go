package e2e

import (
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ForgetNormalizers removes every normalizer from the example's copy: each
// adapter's `normalizers:` and the project's definitions in cassette.yaml,
// and each cassette's own list, as a new project that wrote none would
// have them. It returns how many each adapter listed.
func (e *Example) ForgetNormalizers() map[string]int {
	e.t.Helper()
	n := map[string]int{}
	cfg := e.Path("cassette.yaml")
	e.editYAML(cfg, func(root *yaml.Node) {
		drop(root, "normalizers")
		if ads := get(root, "adapters"); ads != nil {
			for i := 0; i+1 < len(ads.Content); i += 2 {
				if l := get(ads.Content[i+1], "normalizers"); l != nil {
					n[ads.Content[i].Value] = len(l.Content)
				}
				drop(ads.Content[i+1], "normalizers")
			}
		}
	})
	err := filepath.WalkDir(e.Path("cassettes"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			e.editYAML(p, func(root *yaml.Node) { drop(root, "normalizers") })
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *Example) editYAML(path string, edit func(*yaml.Node)) {
	e.t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(ReadFile(e.t, path)), &doc); err != nil || len(doc.Content) == 0 {
		e.t.Fatalf("%s: %v", path, err)
	}
	edit(doc.Content[0])
	var out strings.Builder
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		e.t.Fatal(err)
	}
	WriteFile(e.t, path, out.String())
}

func get(m *yaml.Node, k string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

func drop(m *yaml.Node, k string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// LearnApply runs `cassette learn --adapter A --apply` (with args) in the
// example, which must succeed, and checks that the adapter's learned list
// has no more normalizers than the hand one plus one (issue 39's bound).
// It returns what learn printed.
func (e *Example) LearnApply(cassette, adapter string, hand int, args ...string) string {
	e.t.Helper()
	out, errOut := e.MustBoth(nil, cassette, append([]string{"learn", "--adapter", adapter, "--apply"}, args...)...)
	var cfg struct {
		Adapters map[string]struct {
			Normalizers []string `yaml:"normalizers"`
		} `yaml:"adapters"`
	}
	if !strings.Contains(out, "+++ cassette.yaml (learned)") {
		e.t.Errorf("learn printed no patch of cassette.yaml:\n%s\n%s", out, errOut)
	}
	ReadYAML(e.t, e.Path("cassette.yaml"), &cfg)
	learned := cfg.Adapters[adapter].Normalizers
	e.t.Logf("learned %v (hand-written: %d)\n%s", learned, hand, out)
	if len(learned) == 0 || len(learned) > hand+1 {
		e.t.Errorf("learned %v; want 1 to %d normalizers (the hand-written %d, plus one)\n%s\n%s", learned, hand+1, hand, out, errOut)
	}
	return out
}

// LearnReportsDrift runs `cassette learn` with args (--apply among them)
// after the example's fake was made wrong, and checks what issue 39 asks
// of a real drift: learn prints it as the fake's drift with each of want,
// proposes nothing and leaves cassette.yaml as it was, and `cassette
// verify` with verifyArgs still fails.
func (e *Example) LearnReportsDrift(cassette string, args, want, verifyArgs []string) {
	e.t.Helper()
	cfg := ReadFile(e.t, e.Path("cassette.yaml"))
	out, errOut := e.MustBoth(nil, cassette, append([]string{"learn"}, args...)...)
	for _, w := range append([]string{"the fake differs from reality, not in a volatile way", "no change"}, want...) {
		if !strings.Contains(out, w) {
			e.t.Errorf("learn with a wrong fake lacks %q:\n%s\n%s", w, out, errOut)
		}
	}
	if got := ReadFile(e.t, e.Path("cassette.yaml")); got != cfg {
		e.t.Errorf("learn changed cassette.yaml for a drift of the fake:\n%s", got)
	}
	if _, _, code := e.Run(nil, cassette, append([]string{"verify"}, verifyArgs...)...); code != 1 {
		e.t.Errorf("verify with the wrong fake: exit %d, want 1", code)
	}
}
