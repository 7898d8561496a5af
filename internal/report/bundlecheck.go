package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// requiredBundleFiles are the files every v1 bundle holds.
var requiredBundleFiles = []string{
	"bundle.json", "summary.json", "meta.json", "metrics.json",
	"diagnostics/env_redacted.txt", "diagnostics/tree.txt", "trace/events.jsonl",
	"transcript/summary.txt", "repro.txt", "repro.env", "repro.json", "fixtures.json",
	"logs/index.json", "screenshots/index.json",
}

// ValidateBundle checks a bundle directory against the v1 contract of
// specs/004: bundle.json's schema (name, major; any minor), required keys and
// typed artifact sections; required files; every file a regular file (a
// symbolic link, out of the bundle or not, is refused: it is not the
// bundle's content); every inventory entry (safe path, existing file, bytes
// and sha256 equal to the file's); every non-empty *.json valid JSON and
// every *.jsonl/*.ndjson valid JSON lines; each typed artifact's required
// keys; trace events with suite_start and suite_end and the bundle's
// timestamp; logs/screenshots indexes that agree with the inventory and
// list every *.log and screenshot of the bundle; and counts that agree
// between bundle.json, summary.json, metrics.json and the suite_end event.
// It returns every problem found, none for a valid bundle.
//
// The bundle is read through fsys, the bundle directory dir as the command
// opens it (os.DirFS(dir)); dir names the files in the problems.
func ValidateBundle(fsys fs.FS, dir string) []outcome.Problem {
	v := &bundleValidator{fsys: fsys, dir: dir}
	v.run()
	return v.probs
}

type bundleValidator struct {
	fsys  fs.FS
	dir   string
	probs []outcome.Problem
}

func (v *bundleValidator) add(file string, line int, field, msg, want string) {
	v.probs = append(v.probs, outcome.Problem{File: filepath.Join(v.dir, filepath.FromSlash(file)), Line: line, Field: field, Message: msg, Expected: want})
}

// lookup finds a dotted key path in a decoded JSON object.
func lookup(m map[string]any, key string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(key, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// keys checks "path:type" requirements (types int, string, bool, object,
// array) on a decoded object.
func (v *bundleValidator) keys(file string, line int, m map[string]any, reqs ...string) {
	for _, req := range reqs {
		key, typ, _ := strings.Cut(req, ":")
		val, ok := lookup(m, key)
		if !ok {
			v.add(file, line, key, "required key is missing", typ)
			continue
		}
		if !hasType(val, typ) {
			v.add(file, line, key, fmt.Sprintf("has type %s", jsonType(val)), typ)
		}
	}
}

func hasType(val any, typ string) bool {
	switch typ {
	case "int":
		f, ok := val.(float64)
		return ok && f == math.Trunc(f)
	case "string":
		_, ok := val.(string)
		return ok
	case "bool":
		_, ok := val.(bool)
		return ok
	case "object":
		_, ok := val.(map[string]any)
		return ok
	case "array":
		_, ok := val.([]any)
		return ok
	}
	return false
}

func jsonType(val any) string {
	switch x := val.(type) {
	case nil:
		return "null"
	case float64:
		if x == math.Trunc(x) {
			return "int"
		}
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", val)
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

var inventoryKinds = []string{"metadata", "metrics", "diagnostics", "trace", "transcript", "log", "screenshot", "fixture", "replay", "opaque"}

func (v *bundleValidator) run() {
	if fi, err := fs.Stat(v.fsys, "."); err != nil || !fi.IsDir() {
		v.add("", 0, "", "bundle directory does not exist", "a directory written by cassette verify --bundle-dir")
		return
	}
	for _, f := range requiredBundleFiles {
		if _, err := fs.Stat(v.fsys, f); err != nil {
			v.add(f, 0, "", "required file is missing", "present in every v1 bundle")
		}
	}
	v.walkSyntax()
	m, ok := v.readJSONQuiet("bundle.json")
	if !ok {
		return
	}
	v.keys("bundle.json", 0, m, "schema:object", "schema.name:string", "schema.major:int", "schema.minor:int",
		"suite:string", "timestamp:string", "generated_at:string", "started_at:string", "ended_at:string",
		"counts.total:int", "counts.pass:int", "counts.fail:int", "counts.skip:int",
		"git.commit:string", "git.branch:string", "git.dirty:bool", "artifacts:object", "files:array")
	if name, _ := lookup(m, "schema.name"); name != nil && name != BundleSchemaName {
		v.add("bundle.json", 0, "schema.name", fmt.Sprintf("schema name %v", name), BundleSchemaName)
	}
	if major, ok := lookup(m, "schema.major"); ok && hasType(major, "int") && major.(float64) != BundleSchemaMajor {
		v.add("bundle.json", 0, "schema.major", fmt.Sprintf("unsupported major version %v", major), fmt.Sprint(BundleSchemaMajor))
	}
	if minor, ok := lookup(m, "schema.minor"); ok && hasType(minor, "int") && minor.(float64) < 0 {
		v.add("bundle.json", 0, "schema.minor", "negative minor version", ">= 0")
	}
	stamp, _ := m["timestamp"].(string)
	for section, want := range map[string]string{
		"metadata.path": "meta.json", "metrics.path": "metrics.json", "summary.path": "summary.json",
		"diagnostics.env_redacted.path": "diagnostics/env_redacted.txt", "diagnostics.tree.path": "diagnostics/tree.txt",
		"trace.events.path": "trace/events.jsonl", "transcript.summary.path": "transcript/summary.txt",
		"logs.index.path": "logs/index.json", "screenshots.index.path": "screenshots/index.json",
		"fixtures.path": "fixtures.json", "replay.command.path": "repro.txt", "replay.environment.path": "repro.env",
		"replay.metadata.path": "repro.json",
	} {
		arts, _ := m["artifacts"].(map[string]any)
		got, ok := lookup(arts, section)
		if !ok || got != want {
			v.add("bundle.json", 0, "artifacts."+section, fmt.Sprintf("artifact reference is %v", got), want)
		}
	}
	inv := v.inventory(m)
	for _, f := range requiredBundleFiles {
		if _, listed := inv[f]; !listed && f != "bundle.json" {
			v.add("bundle.json", 0, "files", "required file "+f+" is not in the inventory", "every file of the bundle listed with its sha256 and bytes")
		}
	}
	v.typed(stamp)
	logs := v.index("logs/index.json", inv)
	shots := v.index("screenshots/index.json", inv)
	v.indexedAll(logs, shots)
	v.counts(m)
}

// screenshotExt are the extensions of the screenshot artifacts
// screenshots/index.json inventories.
var screenshotExt = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// indexedAll checks that every *.log file is in logs/index.json and every
// screenshot in screenshots/index.json (specs/004: "normalized inventory of
// all *.log artifacts", "of all screenshot artifacts").
func (v *bundleValidator) indexedAll(logs, shots map[string]bool) {
	_ = fs.WalkDir(v.fsys, ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		ext := strings.ToLower(path.Ext(rel))
		switch {
		case ext == ".log" && logs != nil && !logs[rel]:
			v.add("logs/index.json", 0, "files", rel+" is not in the log index", "every *.log file of the bundle indexed")
		case slices.Contains(screenshotExt, ext) && shots != nil && !shots[rel]:
			v.add("screenshots/index.json", 0, "files", rel+" is not in the screenshot index", "every screenshot of the bundle indexed")
		}
		return nil
	})
}

// counts checks that the counts of the run agree wherever the bundle
// carries them: bundle.json's counts, summary.json's total/pass/fail/skip,
// metrics.json's counts and the suite_end event's counters; and that each
// total is pass + fail + skip.
func (v *bundleValidator) counts(m map[string]any) {
	type where struct {
		file, field string
		counts      map[string]any
	}
	var all []where
	if c, ok := m["counts"].(map[string]any); ok {
		all = append(all, where{"bundle.json", "counts", c})
	}
	if s, ok := v.readJSONQuiet("summary.json"); ok {
		all = append(all, where{"summary.json", "", s})
	}
	if mt, ok := v.readJSONQuiet("metrics.json"); ok {
		if c, ok := mt["counts"].(map[string]any); ok {
			all = append(all, where{"metrics.json", "counts", c})
		}
	}
	if data, err := fs.ReadFile(v.fsys, "trace/events.jsonl"); err == nil {
		for _, ln := range bytes.Split(data, []byte("\n")) {
			var e map[string]any
			if json.Unmarshal(ln, &e) == nil && e["kind"] == "suite_end" {
				if c, ok := e["counters"].(map[string]any); ok {
					all = append(all, where{"trace/events.jsonl", "counters", c})
				}
			}
		}
	}
	keys := []string{"total", "pass", "fail", "skip"}
	field := func(w where, k string) string {
		if w.field == "" {
			return k
		}
		return w.field + "." + k
	}
	for _, w := range all {
		n := map[string]float64{}
		for _, k := range keys {
			n[k], _ = w.counts[k].(float64)
		}
		if n["total"] != n["pass"]+n["fail"]+n["skip"] {
			v.add(w.file, 0, field(w, "total"), fmt.Sprintf("total %v is not pass %v + fail %v + skip %v", n["total"], n["pass"], n["fail"], n["skip"]), "total = pass + fail + skip")
		}
		if w.file == all[0].file {
			continue
		}
		for _, k := range keys {
			if got, want := w.counts[k], all[0].counts[k]; got != want {
				v.add(w.file, 0, field(w, k), fmt.Sprintf("%s %v contradicts %s's %s %v", k, got, all[0].file, field(all[0], k), want), fmt.Sprint(want))
			}
		}
	}
}

func (v *bundleValidator) readJSONQuiet(rel string) (map[string]any, bool) {
	data, err := fs.ReadFile(v.fsys, rel)
	if err != nil {
		return nil, false // reported as a missing required file
	}
	if len(bytes.TrimSpace(data)) == 0 {
		v.add(rel, 0, "", "the file is empty", "a JSON object")
		return nil, false
	}
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return nil, false // reported by walkSyntax
	}
	m, ok := doc.(map[string]any)
	if !ok {
		v.add(rel, 0, "", "the file holds JSON that is not an object", "a JSON object")
		return nil, false
	}
	return m, true
}

// inventory checks bundle.json's files entries and returns them by path.
func (v *bundleValidator) inventory(m map[string]any) map[string]indexEntry {
	out := map[string]indexEntry{}
	files, _ := m["files"].([]any)
	for i, f := range files {
		field := fmt.Sprintf("files[%d]", i)
		e, ok := f.(map[string]any)
		if !ok {
			v.add("bundle.json", 0, field, "inventory entry is not an object", "{path, sha256, bytes, kind, schema}")
			continue
		}
		before := len(v.probs)
		v.keys("bundle.json", 0, e, "path:string", "sha256:string", "bytes:int", "kind:string")
		if s, ok := e["schema"]; !ok || (s != nil && !hasType(s, "string")) {
			v.add("bundle.json", 0, field+".schema", "schema is missing or not a string", "a schema id or null")
		}
		if len(v.probs) > before {
			continue
		}
		p, sum, size, kind := e["path"].(string), e["sha256"].(string), int64(e["bytes"].(float64)), e["kind"].(string)
		if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
			v.add("bundle.json", 0, field+".path", fmt.Sprintf("path %q is not relative to the bundle root", p), "a relative path without ..")
			continue
		}
		if !hex64.MatchString(sum) {
			v.add("bundle.json", 0, field+".sha256", fmt.Sprintf("sha256 %q is not 64 lowercase hex", sum), "64 lowercase hex characters")
		}
		if !slices.Contains(inventoryKinds, kind) {
			v.add("bundle.json", 0, field+".kind", fmt.Sprintf("unknown kind %q", kind), strings.Join(inventoryKinds, "|"))
		}
		out[p] = indexEntry{Path: p, Bytes: size, SHA256: sum}
		data, err := fs.ReadFile(v.fsys, path.Clean(p))
		if err != nil {
			v.add(p, 0, "", "file listed in bundle.json is missing", "present with "+fmt.Sprint(size)+" bytes")
			continue
		}
		if int64(len(data)) != size {
			v.add(p, 0, "", fmt.Sprintf("size %d bytes differs from bundle.json's %d", len(data), size), fmt.Sprintf("%d bytes", size))
		}
		if got := sha256Hex(data); hex64.MatchString(sum) && got != sum {
			v.add(p, 0, "", "sha256 "+got+" differs from bundle.json's", sum)
		}
	}
	return out
}

// walkSyntax checks every *.json (when non-empty) and *.jsonl/*.ndjson file.
func (v *bundleValidator) walkSyntax() {
	_ = fs.WalkDir(v.fsys, ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			v.symlink(rel)
			return nil
		}
		switch ext := path.Ext(rel); ext {
		case ".json", ".jsonl", ".ndjson":
			data, err := fs.ReadFile(v.fsys, rel)
			if err != nil {
				v.add(rel, 0, "", err.Error(), "a readable file")
				return nil
			}
			if ext == ".json" {
				if len(bytes.TrimSpace(data)) > 0 && !json.Valid(data) {
					var x any
					err := json.Unmarshal(data, &x)
					v.add(rel, jsonErrLine(data, err), "", "malformed JSON: "+err.Error(), "valid JSON")
				}
				return nil
			}
			for i, ln := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(ln)) == 0 {
					continue
				}
				var obj map[string]any
				if err := json.Unmarshal(ln, &obj); err != nil {
					v.add(rel, i+1, "", "malformed JSON line: "+err.Error(), "one JSON object per line")
				}
			}
		}
		return nil
	})
}

// symlink reports a symbolic link in the bundle: a bundle holds its files
// (it is copied, archived and uploaded), and a link, above all one out of
// the bundle, makes a file's content whatever it points at.
func (v *bundleValidator) symlink(rel string) {
	target, err := fs.ReadLink(v.fsys, rel)
	switch {
	case err != nil:
		v.add(rel, 0, "", "is a symbolic link", "a regular file")
	case path.IsAbs(target) || filepath.IsAbs(target) || !fs.ValidPath(path.Join(path.Dir(rel), target)):
		v.add(rel, 0, "", "is a symbolic link out of the bundle, to "+target, "a regular file inside the bundle")
	default:
		v.add(rel, 0, "", "is a symbolic link, to "+target, "a regular file")
	}
}

// typed checks the required keys of each typed artifact.
func (v *bundleValidator) typed(stamp string) {
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
		m, ok := v.readJSONQuiet(file)
		if !ok {
			continue
		}
		v.keys(file, 0, m, append(append([]string(nil), base...), reqs...)...)
		if file == "fixtures.json" {
			ids, _ := m["fixture_ids"].([]any)
			seen := map[string]bool{}
			for i, id := range ids {
				s, ok := id.(string)
				if !ok || seen[s] {
					v.add(file, 0, fmt.Sprintf("fixture_ids[%d]", i), "fixture id is not a unique string", "unique strings")
					continue
				}
				seen[s] = true
			}
		}
	}
	data, err := fs.ReadFile(v.fsys, "trace/events.jsonl")
	if err != nil {
		return
	}
	kinds := map[string]bool{}
	for i, ln := range bytes.Split(data, []byte("\n")) {
		var e map[string]any
		if len(bytes.TrimSpace(ln)) == 0 || json.Unmarshal(ln, &e) != nil {
			continue
		}
		v.keys("trace/events.jsonl", i+1, e, "schema_version:int", "suite:string", "run_timestamp:string", "ts:string",
			"kind:string", "case:string", "message:string", "counters.total:int", "counters.pass:int", "counters.fail:int", "counters.skip:int")
		if sv, _ := e["schema_version"].(float64); sv != 1 {
			v.add("trace/events.jsonl", i+1, "schema_version", fmt.Sprintf("schema_version %v", e["schema_version"]), "1")
		}
		if rt, ok := e["run_timestamp"].(string); ok && stamp != "" && rt != stamp {
			v.add("trace/events.jsonl", i+1, "run_timestamp", fmt.Sprintf("run_timestamp %q differs from bundle.json's timestamp", rt), stamp)
		}
		if k, ok := e["kind"].(string); ok {
			kinds[k] = true
		}
	}
	for _, k := range []string{"suite_start", "suite_end"} {
		if !kinds[k] {
			v.add("trace/events.jsonl", 0, "kind", "no "+k+" event", "at least one "+k+" event")
		}
	}
}

// index checks that a logs/screenshots index agrees with the inventory, and
// returns the paths it lists (nil when it cannot be read).
func (v *bundleValidator) index(file string, inv map[string]indexEntry) map[string]bool {
	m, ok := v.readJSONQuiet(file)
	if !ok {
		return nil
	}
	listed := map[string]bool{}
	files, _ := m["files"].([]any)
	for i, f := range files {
		field := fmt.Sprintf("files[%d]", i)
		e, ok := f.(map[string]any)
		if !ok {
			v.add(file, 0, field, "index entry is not an object", "{path, bytes, sha256}")
			continue
		}
		before := len(v.probs)
		v.keys(file, 0, e, "path:string", "bytes:int", "sha256:string")
		if len(v.probs) > before {
			continue
		}
		p := e["path"].(string)
		listed[p] = true
		want, ok := inv[p]
		switch {
		case !ok:
			v.add(file, 0, field+".path", fmt.Sprintf("%s is not in bundle.json's file inventory", p), "every indexed file inventoried")
		case int64(e["bytes"].(float64)) != want.Bytes || e["sha256"].(string) != want.SHA256:
			v.add(file, 0, field, fmt.Sprintf("bytes/sha256 of %s differ from bundle.json's inventory", p), fmt.Sprintf("%d bytes, sha256 %s", want.Bytes, want.SHA256))
		}
	}
	return listed
}

// jsonErrLine is the 1-based line of a JSON decoding error, 0 if unknown.
func jsonErrLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return 0
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
