package speccheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

var bundleRequired = []string{"bundle.json", "summary.json", "meta.json", "metrics.json",
	"diagnostics/env_redacted.txt", "diagnostics/tree.txt", "trace/events.jsonl", "transcript/summary.txt",
	"repro.txt", "repro.env", "repro.json", "fixtures.json", "logs/index.json", "screenshots/index.json"}

var bundleKinds = []string{"metadata", "metrics", "diagnostics", "trace", "transcript", "log", "screenshot", "fixture", "replay", "opaque"}

// Bundle checks a forensic bundle directory against specs/004 (v1): the
// required files, bundle.json's keys, typed artifact sections and file
// inventory (every file listed, sizes and hashes right, every path under the
// bundle root: no file is a symbolic link out of it), the typed artifacts'
// required keys, JSON and JSONL syntax, the logs and screenshots indexes
// (agreeing with the inventory, listing every *.log and screenshot), and
// counts that agree between bundle.json, summary.json and metrics.json. It
// returns every violation.
func Bundle(dir string) []string {
	c := &checker{dir: dir}
	for _, f := range bundleRequired {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			c.bad("004", f, "required file is missing")
		}
	}
	b := &bundle{checker: c, onDisk: c.bundleFiles()}
	b.manifest = c.object("004", "bundle.json")
	if b.manifest == nil {
		return c.probs
	}
	b.header()
	b.inventory()
	b.typedArtifacts()
	b.trace()
	b.diagnostics()
	return c.probs
}

// credentialName is a variable name whose value is a credential (specs/000:
// redact tokens, keys, secrets, passwords; the bundle's environment is
// "redacted", specs/004).
var credentialName = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL|(^|_)AUTH(_|$))`)

// diagnostics checks diagnostics/tree.txt and env_redacted.txt: the tree
// lists every file of the bundle but itself and bundle.json, each with its
// size, in path order; every credential-named variable's value in the
// environment is [REDACTED].
func (b *bundle) diagnostics() {
	if tree, ok := b.onDisk["diagnostics/tree.txt"]; ok {
		var listed []string
		for i, ln := range strings.Split(strings.TrimSuffix(string(tree), "\n"), "\n") {
			f := strings.Fields(ln)
			if len(f) != 2 {
				b.bad("diagnostics/tree.txt", "line %d is not SIZE PATH: %.80q", i+1, ln)
				continue
			}
			listed = append(listed, f[1])
			if data, ok := b.onDisk[f[1]]; !ok {
				b.bad("diagnostics/tree.txt", "line %d lists %s, which the bundle does not hold", i+1, f[1])
			} else if strconv.Itoa(len(data)) != f[0] {
				b.bad("diagnostics/tree.txt", "line %d: %s is %d bytes, the tree says %s", i+1, f[1], len(data), f[0])
			}
		}
		if !sort.StringsAreSorted(listed) {
			b.bad("diagnostics/tree.txt", "not in path order")
		}
		for p := range b.onDisk {
			if p != "diagnostics/tree.txt" && p != "bundle.json" && !slices.Contains(listed, p) {
				b.bad("diagnostics/tree.txt", "does not list %s", p)
			}
		}
	}
	env, ok := b.onDisk["diagnostics/env_redacted.txt"]
	if !ok {
		return
	}
	for i, ln := range strings.Split(string(env), "\n") {
		name, value, found := strings.Cut(ln, "=")
		if found && credentialName.MatchString(name) && value != "[REDACTED]" && value != "" {
			b.bad("diagnostics/env_redacted.txt", "line %d: %s holds a value, not [REDACTED]", i+1, name)
		}
	}
}

// bundle is what the checks of one bundle share: the files as they are on
// disk, bundle.json, and its file inventory by path.
type bundle struct {
	*checker
	onDisk   map[string][]byte
	manifest map[string]any
	inv      map[string]map[string]any
}

func (b *bundle) bad(file, format string, args ...any) { b.checker.bad("004", file, format, args...) }

// bundleFiles reads every file of the bundle by its path relative to the
// root, refusing symbolic links and malformed JSON and JSONL.
func (c *checker) bundleFiles() map[string][]byte {
	onDisk := map[string][]byte{}
	_ = filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(c.dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			resolved := target
			if !filepath.IsAbs(target) {
				resolved = filepath.Join(filepath.Dir(p), target)
			}
			if r, err := filepath.Rel(c.dir, resolved); err != nil || r == ".." || strings.HasPrefix(r, "../") {
				c.bad("004", rel, "a symbolic link out of the bundle (to %s): not a file under the bundle root", target)
			} else {
				c.bad("004", rel, "a symbolic link (to %s), not a file of the bundle", target)
			}
		}
		data, _ := os.ReadFile(p)
		onDisk[rel] = data
		switch filepath.Ext(rel) {
		case ".json":
			if len(bytes.TrimSpace(data)) > 0 && !json.Valid(data) {
				c.bad("004", rel, "malformed JSON")
			}
		case ".jsonl", ".ndjson":
			for i, ln := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(ln)) > 0 && !json.Valid(ln) {
					c.bad("004", rel, "line %d: malformed JSON", i+1)
				}
			}
		}
		return nil
	})
	return onDisk
}

// need checks that each dotted key of doc holds a value of its type
// ("counts.total:int").
func (b *bundle) need(file string, doc map[string]any, reqs ...string) {
	for _, req := range reqs {
		key, typ, _ := strings.Cut(req, ":")
		var cur any = doc
		for _, k := range strings.Split(key, ".") {
			cur = obj(cur)[k]
		}
		ok := false
		switch typ {
		case "int":
			ok = isInt(cur)
		case "string":
			_, ok = cur.(string)
		case "bool":
			_, ok = cur.(bool)
		case "object":
			_, ok = cur.(map[string]any)
		case "array":
			_, ok = cur.([]any)
		}
		if !ok {
			b.bad(file, "%s: missing or not %s", key, typ)
		}
	}
}

// header checks bundle.json's own keys, its schema version, and that each
// typed artifact section points at the file specs/004 names for it.
func (b *bundle) header() {
	m := b.manifest
	b.need("bundle.json", m, "schema.name:string", "schema.major:int", "schema.minor:int", "suite:string", "timestamp:string",
		"generated_at:string", "started_at:string", "ended_at:string", "counts.total:int", "counts.pass:int",
		"counts.fail:int", "counts.skip:int", "git.commit:string", "git.branch:string", "git.dirty:bool", "artifacts:object", "files:array")
	if num(obj(m["schema"])["major"]) != 1 {
		b.bad("bundle.json", "schema.major %v, expected 1", obj(m["schema"])["major"])
	}
	arts := obj(m["artifacts"])
	for ref, want := range map[string]string{"metadata": "meta.json", "metrics": "metrics.json", "summary": "summary.json",
		"diagnostics.env_redacted": "diagnostics/env_redacted.txt", "diagnostics.tree": "diagnostics/tree.txt",
		"trace.events": "trace/events.jsonl", "transcript.summary": "transcript/summary.txt", "logs.index": "logs/index.json",
		"screenshots.index": "screenshots/index.json", "fixtures": "fixtures.json", "replay.command": "repro.txt",
		"replay.environment": "repro.env", "replay.metadata": "repro.json"} {
		var cur any = arts
		for _, k := range strings.Split(ref, ".") {
			cur = obj(cur)[k]
		}
		if got := str(obj(cur)["path"]); got != want {
			b.bad("bundle.json", "artifacts.%s.path %q, expected %q", ref, got, want)
		}
	}
	b.counts("bundle.json", obj(m["counts"]))
}

// inventory checks bundle.json's files against the disk: every entry a
// relative path with its hash, kind and schema, present with the bytes it
// lists, and every file on disk listed.
func (b *bundle) inventory() {
	b.inv = map[string]map[string]any{}
	files, _ := b.manifest["files"].([]any)
	for i, fv := range files {
		e := obj(fv)
		p := str(e["path"])
		b.inv[p] = e
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
			b.bad("bundle.json", "files[%d].path %q is not relative to the bundle root", i, p)
			continue
		}
		if !hex64.MatchString(str(e["sha256"])) {
			b.bad("bundle.json", "files[%d].sha256 is not 64 lowercase hex", i)
		}
		if !slices.Contains(bundleKinds, str(e["kind"])) {
			b.bad("bundle.json", "files[%d].kind %v", i, e["kind"])
		}
		if s, ok := e["schema"]; !ok || (s != nil && str(s) == "") {
			b.bad("bundle.json", "files[%d].schema must be a string or null", i)
		}
		data, ok := b.onDisk[p]
		if !ok {
			b.bad(p, "listed in bundle.json but missing")
			continue
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != str(e["sha256"]) || num(e["bytes"]) != len(data) {
			b.bad(p, "bytes/sha256 differ from bundle.json's inventory")
		}
	}
	for p := range b.onDisk {
		if _, ok := b.inv[p]; !ok && p != "bundle.json" {
			b.bad(p, "not in bundle.json's file inventory")
		}
	}
}

// typedArtifacts checks each typed artifact's required keys and run
// timestamp, and what each adds: counts that agree with bundle.json, the
// recorder sha, the correlation id, the indexes.
func (b *bundle) typedArtifacts() {
	stamp := str(b.manifest["timestamp"])
	base := []string{"schema_version:int", "suite:string", "timestamp:string"}
	for file, reqs := range map[string][]string{
		"summary.json":           {"started_at:string", "ended_at:string", "total:int", "pass:int", "fail:int", "skip:int"},
		"meta.json":              {"started_at:string", "ended_at:string", "git.commit:string", "git.branch:string", "git.dirty:bool", "runner:object", "paths:object"},
		"metrics.json":           {"timing.start_epoch_s:int", "timing.end_epoch_s:int", "timing.duration_s:int", "counts.total:int", "counts.pass:int", "counts.fail:int", "counts.skip:int"},
		"fixtures.json":          {"fixture_ids:array"},
		"repro.json":             {"clock_mode:string", "seed:int", "run_started_at:string", "run_start_epoch_s:int", "command:string"},
		"logs/index.json":        {"files:array"},
		"screenshots/index.json": {"files:array"},
	} {
		doc := b.object("004", file)
		if doc == nil {
			continue
		}
		b.need(file, doc, append(append([]string(nil), base...), reqs...)...)
		if str(doc["timestamp"]) != stamp {
			b.bad(file, "timestamp %v differs from bundle.json's %s", doc["timestamp"], stamp)
		}
		switch file {
		case "summary.json":
			b.counts(file, doc)
			b.sameCounts(file, doc, obj(b.manifest["counts"]))
		case "metrics.json":
			b.counts(file, obj(doc["counts"]))
			b.sameCounts(file, obj(doc["counts"]), obj(b.manifest["counts"]))
		case "meta.json":
			if str(obj(doc["runner"])["sha"]) == "" {
				b.bad(file, "runner.sha is empty (the recorder sha, specs/003)")
			}
		case "repro.json":
			if str(doc["correlation_id"]) == "" {
				b.bad(file, "no correlation_id (required in replay summaries, specs/000)")
			}
		case "logs/index.json", "screenshots/index.json":
			b.index(file, doc)
		}
	}
}

// index checks a logs or screenshots index: each entry as the inventory
// lists it, and every such file of the bundle in it.
func (b *bundle) index(file string, doc map[string]any) {
	entries, _ := doc["files"].([]any)
	listed := map[string]bool{}
	for i, ev := range entries {
		e := obj(ev)
		listed[str(e["path"])] = true
		want := b.inv[str(e["path"])]
		if want == nil || num(want["bytes"]) != num(e["bytes"]) || want["sha256"] != e["sha256"] {
			b.bad(file, "files[%d] %v does not match the inventory", i, e["path"])
		}
	}
	for p := range b.onDisk {
		ext := strings.ToLower(filepath.Ext(p))
		isLog := ext == ".log"
		isShot := slices.Contains([]string{".png", ".jpg", ".jpeg", ".gif", ".webp"}, ext)
		if (file == "logs/index.json" && isLog || file == "screenshots/index.json" && isShot) && !listed[p] {
			b.bad(file, "%s is not listed: the index is the inventory of all such artifacts", p)
		}
	}
}

// trace checks trace/events.jsonl: each event's keys, the run's
// timestamp, and the suite_start and suite_end events.
func (b *bundle) trace() {
	stamp := str(b.manifest["timestamp"])
	kinds := map[string]bool{}
	for i, ln := range bytes.Split(b.onDisk["trace/events.jsonl"], []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(ln, &e) != nil {
			continue
		}
		b.need("trace/events.jsonl", e, "schema_version:int", "suite:string", "run_timestamp:string", "ts:string", "kind:string",
			"case:string", "message:string", "counters.total:int", "counters.pass:int", "counters.fail:int", "counters.skip:int")
		if e["run_timestamp"] != stamp {
			b.bad("trace/events.jsonl", "line %d: run_timestamp %v differs from %s", i+1, e["run_timestamp"], stamp)
		}
		kinds[str(e["kind"])] = true
	}
	if !kinds["suite_start"] || !kinds["suite_end"] {
		b.bad("trace/events.jsonl", "suite_start and suite_end events are required")
	}
}

// counts checks total = pass + fail + skip.
func (c *checker) counts(file string, m map[string]any) {
	if m == nil {
		return
	}
	if num(m["total"]) != num(m["pass"])+num(m["fail"])+num(m["skip"]) {
		c.bad("004", file, "total %v ≠ pass %v + fail %v + skip %v", m["total"], m["pass"], m["fail"], m["skip"])
	}
}

// sameCounts checks that a file counts the run as bundle.json does.
func (c *checker) sameCounts(file string, m, bundle map[string]any) {
	if m == nil || bundle == nil {
		return
	}
	for _, k := range []string{"total", "pass", "fail", "skip"} {
		if num(m[k]) != num(bundle[k]) {
			c.bad("004", file, "%s %v contradicts bundle.json's counts.%s %v", k, m[k], k, bundle[k])
		}
	}
}

// Describe joins problems for a test failure message.
func Describe(probs []string) string {
	return fmt.Sprintf("%d problem(s):\n  %s", len(probs), strings.Join(probs, "\n  "))
}
