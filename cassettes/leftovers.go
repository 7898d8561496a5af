package cassettes

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// sidecarRefRe finds the body_file references in a cassette's text.
var sidecarRefRe = regexp.MustCompile(sidecarDir + `/sha256-[0-9a-f]{64}\.bin`)

// sidecarRefs returns the sidecar names the cassette file at path refers
// to (none when it does not exist or is not a readable regular file).
func sidecarRefs(path string) map[string]bool {
	data, prob, err := readRegular(path, "", MaxFileBytes)
	if err != nil || prob != nil {
		return nil
	}
	out := map[string]bool{}
	for _, m := range sidecarRefRe.FindAll(data, -1) {
		out[string(m)] = true
	}
	return out
}

// removeLeftovers runs after a cassette was saved at path, referring to the
// sidecars in keep. It removes what earlier saves of this cassette left:
// temp files of a save that was killed (.NAME.yaml.tmp-*, and those of the
// sidecars it wrote or referred to), and the sidecars its previous version
// (old) referred to that neither it nor another cassette of the directory
// refers to any more. Failures are ignored: a leftover costs disk, never
// correctness.
func removeLeftovers(path string, old, keep map[string]bool) {
	dir := filepath.Dir(path)
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(filepath.Base(path))+".tmp-*"))
	for name := range mergeKeys(old, keep) {
		more, _ := filepath.Glob(filepath.Join(dir, sidecarDir, "."+escapeGlob(filepath.Base(name))+".tmp-*"))
		tmps = append(tmps, more...)
	}
	for _, t := range tmps {
		if st, err := os.Lstat(t); err == nil && st.Mode().IsRegular() {
			os.Remove(t)
		}
	}
	gone := map[string]bool{}
	for name := range old {
		if !keep[name] {
			gone[name] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if n == filepath.Base(path) || strings.HasPrefix(n, ".") || !e.Type().IsRegular() {
			continue
		}
		if ext := filepath.Ext(n); ext != ".yaml" && ext != ".yml" && ext != ".jsonl" {
			continue
		}
		for ref := range sidecarRefs(filepath.Join(dir, n)) {
			delete(gone, ref) // another cassette still uses it
		}
	}
	for name := range gone {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			os.Remove(p)
		}
	}
}

func mergeKeys(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// escapeGlob quotes the glob metacharacters of a file name.
func escapeGlob(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}
