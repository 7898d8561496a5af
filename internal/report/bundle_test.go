package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

func writeBundle(t *testing.T) string {
	t.Helper()
	dir, err := WriteBundle(t.TempDir(), failingRun(), BundleFiles{
		Cassettes: []File{{Path: "cassettes/github/list-pulls.yaml", Data: []byte("cassette: 1\nversion: 2\n")},
			{Path: "../../etc/escape.yaml", Data: []byte("x: 1\n")}},
		Logs: []File{{Path: "fake-github.log", Data: []byte("listening on 127.0.0.1:4000\n")}},
		Env:  []string{"HOME=/home/ci", "GITHUB_TOKEN=ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4b", "SHOP_PASSWORD=hunter22", "PLAIN=hello", "DATABASE_URL=postgres://u:hunter2pass@h/db"},
		Git:  GitInfo{Commit: "1a2b3c4", Branch: "main"},
	})
	if err != nil {
		t.Fatalf("WriteBundle: %v", err)
	}
	return dir
}

func TestWriteBundleIsValid(t *testing.T) {
	dir := writeBundle(t)
	if probs := validate(dir); len(probs) > 0 {
		t.Fatalf("a bundle WriteBundle wrote does not validate: %v", probs)
	}
	if got := filepath.Base(dir); got != "20261122_140000" || filepath.Base(filepath.Dir(dir)) != "shop" {
		t.Errorf("bundle dir = %s, want <root>/shop/20261122_140000", dir)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "diagnostics", "env_redacted.txt"))
	if want := "DATABASE_URL=[REDACTED]\nGITHUB_TOKEN=[REDACTED]\nHOME=/home/ci\nPLAIN=[REDACTED]\nSHOP_PASSWORD=[REDACTED]\n"; string(env) != want {
		t.Errorf("env_redacted.txt = %q, want %q", env, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "fixtures", "etc", "escape.yaml")); err != nil {
		t.Errorf("a fixture path with .. must land inside the bundle: %v", err)
	}
	if probs := validate(dir); len(probs) > 0 {
		t.Errorf("ValidateBundle: %v", probs)
	}
	// a second bundle of the same second does not overwrite the first
	root := filepath.Dir(filepath.Dir(dir))
	second, err := WriteBundle(root, failingRun(), BundleFiles{})
	if err != nil || second == dir {
		t.Errorf("second bundle %s, %v", second, err)
	}
	if probs := validate(second); len(probs) > 0 {
		t.Errorf("second bundle: %v", probs)
	}
}

// TestWriteBundleRefusesLeaks: a file the bundle copies as it is (a
// cassette) that holds a key of a known format stops the bundle, and
// nothing is left of it: no file, no empty folder; the error says that no
// bundle was written (the reports are not its to speak for).
func TestWriteBundleRefusesLeaks(t *testing.T) {
	root := filepath.Join(t.TempDir(), "bundles")
	_, err := WriteBundle(root, passingRun(), BundleFiles{Cassettes: []File{{Path: "cassettes/x/y.yaml", Data: []byte("auth: ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c")}}})
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak {
		t.Fatalf("err = %v, want E_SECRET_LEAK", err)
	}
	if strings.Contains(ce.Message, "nothing was written") || !strings.Contains(ce.Message, "no bundle was written") {
		t.Errorf("the message must speak of the bundle only: %s", ce.Message)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused bundle left its folder %s behind (%v)", root, err)
	}
}

// TestWriteBundleRedactsLogsAsReports: a fake's log that holds a key of a
// known format and a declared value is copied into the bundle redacted,
// by the redaction the reports' own copy gets (scrubLogs), so the bundle
// is written and the run keeps one exit code.
func TestWriteBundleRedactsLogsAsReports(t *testing.T) {
	log := []byte("auth: ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c\npassword hunter22\n")
	dir, err := WriteBundle(t.TempDir(), passingRun(), BundleFiles{Logs: []File{{Path: "fake.log", Data: log}},
		Options: Options{Declared: map[string]string{"SHOP_PASSWORD": "hunter22"}}})
	if err != nil {
		t.Fatalf("WriteBundle: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "logs", "fake.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := scrubbedLog(log, map[string]string{"SHOP_PASSWORD": "hunter22"}); !bytes.Equal(got, want) || bytes.Contains(got, []byte("ghp_")) || bytes.Contains(got, []byte("hunter22")) {
		t.Errorf("the bundle's copy of the log = %q, want the reports' redaction %q", got, want)
	}
	if probs := validate(dir); len(probs) > 0 {
		t.Errorf("ValidateBundle: %v", probs)
	}
}

// editJSON rewrites one JSON file of a bundle.
func editJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestValidateBundleRejects has one case per violation class of specs/004.
func TestValidateBundleRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string)
		want   string // a fragment of one problem
	}{
		{"schema name", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) { m["schema"].(map[string]any)["name"] = "mcp-agent-mail-artifacts" })
		}, "schema.name"},
		{"schema major", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) { m["schema"].(map[string]any)["major"] = 2 })
		}, "unsupported major"},
		{"bundle.json missing key", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) { delete(m, "counts") })
		}, "counts.total: required key is missing"},
		{"artifact section", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) { delete(m["artifacts"].(map[string]any), "replay") })
		}, "artifacts.replay.command.path"},
		{"missing required file", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "repro.env"))
		}, "repro.env: required file is missing"},
		{"inventoried file missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "logs", "fake-github.log"))
		}, "file listed in bundle.json is missing"},
		{"byte mismatch", func(t *testing.T, dir string) {
			f, _ := os.OpenFile(filepath.Join(dir, "transcript", "summary.txt"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("more\n")
			f.Close()
		}, "differs from bundle.json's"},
		{"hash mismatch", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "repro.txt")
			b, _ := os.ReadFile(p)
			b[0] ^= 0x20 // same size, other bytes
			os.WriteFile(p, b, 0o644)
		}, "sha256"},
		{"bad inventory path", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) {
				m["files"].([]any)[0].(map[string]any)["path"] = "../outside.txt"
			})
		}, "not relative to the bundle root"},
		{"bad inventory hash format", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) {
				m["files"].([]any)[0].(map[string]any)["sha256"] = "ABC"
			})
		}, "64 lowercase hex"},
		{"unknown inventory kind", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) {
				m["files"].([]any)[0].(map[string]any)["kind"] = "video"
			})
		}, "unknown kind"},
		{"malformed JSON", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "extra.json"), []byte("{\n  \"a\": 1,\n}"), 0o644)
		}, "extra.json:3: malformed JSON"},
		{"malformed JSONL", func(t *testing.T, dir string) {
			f, _ := os.OpenFile(filepath.Join(dir, "trace", "events.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("{not json\n")
			f.Close()
		}, "malformed JSON line"},
		{"typed artifact schema", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "metrics.json"), func(m map[string]any) { m["timing"].(map[string]any)["duration_s"] = "1s" })
		}, "timing.duration_s: has type string"},
		{"trace without suite_end", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "trace", "events.jsonl")
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
			os.WriteFile(p, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
		}, "no suite_end event"},
		{"trace of another run", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "trace", "events.jsonl")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.ReplaceAll(b, []byte("20261122_140000"), []byte("20991231_000000")), 0o644)
		}, "differs from bundle.json's timestamp"},
		{"duplicate fixture id", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "fixtures.json"), func(m map[string]any) {
				m["fixture_ids"] = append(m["fixture_ids"].([]any), m["fixture_ids"].([]any)[0])
			})
		}, "unique string"},
		{"logs index disagrees with inventory", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "logs", "index.json"), func(m map[string]any) {
				m["files"].([]any)[0].(map[string]any)["bytes"] = 1
			})
		}, "differ from bundle.json's inventory"},
		{"no bundle", func(t *testing.T, dir string) { os.RemoveAll(dir) }, "does not exist"},
		{"non-string fixture id", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "fixtures.json"), func(m map[string]any) { m["fixture_ids"] = []any{map[string]any{}} })
		}, "unique string"},
		{"empty bundle.json", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "bundle.json"), nil, 0o644)
		}, "bundle.json: the file is empty"},
		{"bundle.json not an object", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "bundle.json"), []byte("[]\n"), 0o644)
		}, "not an object"},
		{"required file left out of the inventory", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "bundle.json"), func(m map[string]any) {
				var kept []any
				for _, f := range m["files"].([]any) {
					if f.(map[string]any)["path"] != "repro.txt" {
						kept = append(kept, f)
					}
				}
				m["files"] = kept
			})
		}, "required file repro.txt is not in the inventory"},
		{"required file replaced by a symlink out of the bundle", func(t *testing.T, dir string) {
			// the same bytes, so that the inventory's size and hash still match
			p := filepath.Join(dir, "repro.json")
			b, _ := os.ReadFile(p)
			outside := filepath.Join(t.TempDir(), "repro.json")
			os.WriteFile(outside, b, 0o644)
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}, "repro.json: is a symbolic link out of the bundle"},
		{"a log the log index does not list", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "server.log"), []byte("started\n"), 0o644)
		}, "server.log is not in the log index"},
		{"metrics counts contradict bundle.json", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "metrics.json"), func(m map[string]any) {
				c := m["counts"].(map[string]any)
				c["pass"], c["fail"] = c["pass"].(float64)+c["fail"].(float64), 0
			})
		}, "fail 0 contradicts bundle.json's counts.fail 3"},
		{"counts that do not add up", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "summary.json"), func(m map[string]any) { m["total"] = 99 })
		}, "total 99 is not pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeBundle(t)
			tc.mutate(t, dir)
			probs := validate(dir)
			var all []string
			found := false
			for _, p := range probs {
				all = append(all, p.String())
				found = found || strings.Contains(p.String(), tc.want)
			}
			if !found {
				t.Errorf("no problem mentions %q; got:\n%s", tc.want, strings.Join(all, "\n"))
			}
		})
	}
}

// TestWriteBundleLogNameCollisions: logs named like the index, or like each
// other, are all written and the bundle validates.
func TestWriteBundleLogNameCollisions(t *testing.T) {
	run := &Run{Tool: Tool{Name: "cassette", Version: "1"}, Command: "verify", Suite: "s", Started: t0, Finished: t0}
	dir, err := WriteBundle(t.TempDir(), run, BundleFiles{Logs: []File{{Path: "index.json", Data: []byte("a\n")}, {Path: "fake.log", Data: []byte("b\n")}, {Path: "./fake.log", Data: []byte("c\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if probs := validate(dir); len(probs) != 0 {
		t.Fatalf("WriteBundle wrote a bundle its validator rejects: %v", probs)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	if len(logs) != 4 { // three logs and the index
		t.Errorf("logs/ holds %v, want three logs and index.json", logs)
	}
}

// TestBundleRoot: a bundle where WriteBundle put it names its root (the
// second one of a second too); one copied or renamed elsewhere, or whose
// bundle.json names another suite, names none.
func TestBundleRoot(t *testing.T) {
	root := t.TempDir()
	first, second := twoBundles(t, root)
	copyDir := func(to string) string {
		t.Helper()
		to = filepath.Join(t.TempDir(), to)
		if err := os.CopyFS(to, os.DirFS(first)); err != nil {
			t.Fatal(err)
		}
		return to
	}
	bare := t.TempDir() // no bundle.json to read: the name is all there is to go by
	for _, tc := range []struct {
		name, dir, root string // root "": none
	}{
		{"in place", first, root},
		{"in place, a second in the same second", second, root},
		{"in place, a path ending in /", first + string(filepath.Separator), root},
		{"copied, renamed", copyDir(filepath.Join("artifact", "bundle")), ""},
		{"copied, its name kept, under another suite", copyDir(filepath.Join("dl", "other", filepath.Base(first))), ""},
		{"no bundle.json, named like a bundle", filepath.Join(bare, "s", "20261122_140000"), bare},
		{"a name that only starts like one", filepath.Join(t.TempDir(), "s", "20261122_140000_x"), ""},
		{"suffix _1 (WriteBundle starts at _2)", filepath.Join(t.TempDir(), "s", "20261122_140000_1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := BundleRoot(tc.dir)
			switch {
			case tc.root == "" && ok:
				t.Errorf("BundleRoot(%s) = %q, true; want no root", tc.dir, got)
			case tc.root != "" && (!ok || got != tc.root):
				t.Errorf("BundleRoot(%s) = %q, %v; want %q, true", tc.dir, got, ok, tc.root)
			}
		})
	}
}

// validate validates the bundle at dir as `cassette bundle validate` does.
func validate(dir string) []outcome.Problem { return ValidateBundle(os.DirFS(dir), dir) }
