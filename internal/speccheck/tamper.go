package speccheck

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Tamper is one way to break a bundle that the validator of specs/004 must
// refuse. Each breaks one rule only: a file it edits is re-inventoried in
// bundle.json (size and hash), so that a validator that only compares
// hashes does not refuse it for the wrong reason.
type Tamper struct {
	Name  string
	Apply func(dir string) error
}

// Tampers lists the breakages, from the spec's text: a required file
// missing, a file that is not what the inventory says, malformed JSON and
// JSONL, a required file replaced by a symbolic link out of the bundle, a
// *.log the log index does not list, counts that contradict bundle.json,
// an inventory path out of the bundle, an unknown major version, and a log
// index that disagrees with the inventory.
func Tampers() []Tamper {
	return []Tamper{
		{"a required file is missing", func(dir string) error {
			return os.Remove(filepath.Join(dir, "fixtures.json"))
		}},
		{"a file is not what the inventory says", func(dir string) error {
			return appendTo(filepath.Join(dir, "repro.txt"), "# edited\n")
		}},
		{"malformed JSON", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte("{\"schema_version\": 1,\n"), 0o644); err != nil {
				return err
			}
			return reinventory(dir, "meta.json")
		}},
		{"malformed JSONL", func(dir string) error {
			if err := appendTo(filepath.Join(dir, "trace", "events.jsonl"), "{not json\n"); err != nil {
				return err
			}
			return reinventory(dir, "trace/events.jsonl")
		}},
		{"a required file replaced by a symbolic link out of the bundle", func(dir string) error {
			p := filepath.Join(dir, "repro.json")
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			// beside the bundle, out of it; the same bytes, so that the
			// inventory still matches
			target := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".outside-repro.json")
			if err := os.WriteFile(target, data, 0o644); err != nil {
				return err
			}
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Symlink(target, p)
		}},
		{"a *.log the log index does not list", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "logs", "unlisted.log"), []byte("a server log\n"), 0o644); err != nil {
				return err
			}
			return reinventory(dir, "logs/unlisted.log")
		}},
		{"metrics.json counts that contradict bundle.json", func(dir string) error {
			return editJSON(dir, "metrics.json", func(m map[string]any) {
				c := obj(m["counts"])
				c["total"], c["pass"] = num(c["total"])+5, num(c["pass"])+5 // still total = pass + fail + skip
			})
		}},
		{"an inventory path out of the bundle", func(dir string) error {
			return editJSON(dir, "bundle.json", func(m map[string]any) {
				files, _ := m["files"].([]any)
				files = append(files, map[string]any{"path": "../outside.txt", "sha256": strings.Repeat("0", 64), "bytes": 0, "kind": "opaque", "schema": nil})
				m["files"] = files
			})
		}},
		{"an unknown major version", func(dir string) error {
			return editJSON(dir, "bundle.json", func(m map[string]any) { obj(m["schema"])["major"] = 2 })
		}},
		{"a log index that disagrees with the inventory", func(dir string) error {
			if err := appendTo(filepath.Join(dir, "logs", "index-probe.log"), "x\n"); err != nil {
				return err
			}
			if err := reinventory(dir, "logs/index-probe.log"); err != nil {
				return err
			}
			return editJSON(dir, "logs/index.json", func(m map[string]any) {
				files, _ := m["files"].([]any)
				m["files"] = append(files, map[string]any{"path": "logs/index-probe.log", "bytes": 1, "sha256": strings.Repeat("a", 64)})
			})
		}},
	}
}

func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// editJSON rewrites a JSON file of the bundle and re-inventories it (unless
// it is bundle.json).
func editJSON(dir, rel string, edit func(map[string]any)) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	edit(m)
	if data, err = json.MarshalIndent(m, "", "  "); err != nil {
		return err
	}
	if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if rel == "bundle.json" {
		return nil
	}
	return reinventory(dir, rel)
}

// reinventory sets rel's size and hash in bundle.json's inventory to the
// file's (adding an entry when it has none).
func reinventory(dir, rel string) error {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	return editJSON(dir, "bundle.json", func(m map[string]any) {
		files, _ := m["files"].([]any)
		for _, f := range files {
			if e := obj(f); str(e["path"]) == rel {
				e["sha256"], e["bytes"] = hex.EncodeToString(sum[:]), len(data)
				return
			}
		}
		kind := "opaque"
		if strings.HasPrefix(rel, "logs/") {
			kind = "log"
		}
		m["files"] = append(files, map[string]any{"path": rel, "sha256": hex.EncodeToString(sum[:]), "bytes": len(data), "kind": kind, "schema": nil})
	})
}

// Verdict checks a validator's verdict on the bundle at dir (the exit code
// of `bundle validate DIR` and what it printed) against this checker's: a
// bundle with a problem is refused, by a non-zero exit that names the
// bundle; a valid bundle is accepted, with exit 0.
func Verdict(dir string, exit int, stdout, stderr string) []string {
	c := &checker{dir: dir}
	probs := Bundle(dir)
	switch {
	case len(probs) > 0 && exit == 0:
		c.bad("004", dir, "the validator accepted a bundle that breaks the spec:\n    %s", strings.Join(probs, "\n    "))
	case len(probs) > 0 && !strings.Contains(stdout+stderr, filepath.Base(dir)):
		c.bad("004", dir, "the validator refused the bundle (exit %d) without naming it", exit)
	case len(probs) == 0 && exit != 0:
		c.bad("004", dir, "the validator refused a valid bundle (exit %d): %s", exit, strings.TrimSpace(stderr))
	}
	return c.probs
}
