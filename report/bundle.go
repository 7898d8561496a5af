package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// The bundle schema (specs/004): our own name, major 1, minor 0.
const (
	BundleSchemaName  = "cassette-artifacts"
	BundleSchemaMajor = 1
	BundleSchemaMinor = 0
	bundleTimeLayout  = "20060102_150405"
)

// requiredBundleFiles are the files every v1 bundle holds.
var requiredBundleFiles = []string{
	"bundle.json", "summary.json", "meta.json", "metrics.json",
	"diagnostics/env_redacted.txt", "diagnostics/tree.txt", "trace/events.jsonl",
	"transcript/summary.txt", "repro.txt", "repro.env", "repro.json", "fixtures.json",
	"logs/index.json", "screenshots/index.json",
}

// BundleFiles is what a forensic bundle holds besides what the run model
// says.
type BundleFiles struct {
	// Cassettes are the cassettes the run used, copied under fixtures/.
	Cassettes []File
	// Logs are the fakes' (and other processes') logs, copied under logs/ and
	// indexed in logs/index.json.
	Logs []File
	// Env is the environment as "NAME=value" (os.Environ()); credential-like
	// names and declared values are redacted before it is written.
	Env []string
	// Git describes the working tree.
	Git GitInfo
	// Options are the report options (golden mode, declared credential
	// values for the scan, clock).
	Options Options
	// Reports are the run's report files as Render made them (and Write
	// wrote them), copied under reports/; nil renders them here.
	Reports Files
}

// File is one file given to a bundle: a slash-separated relative path (or a
// base name) and its content.
type File struct {
	Path string
	Data []byte
}

// GitInfo describes the working tree a run ran in.
type GitInfo struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	Dirty  bool   `json:"dirty"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// localPath makes p a safe relative path: slash-separated, no "..", no
// leading "/".
func localPath(p string) string {
	p = path.Clean("/" + filepath.ToSlash(p))
	return strings.TrimPrefix(p, "/")
}

// WriteBundle writes the forensic bundle of run under
// root/<suite>/<timestamp>/ (a suffix _2, _3 … is added when that exists)
// and returns its directory. Every file is secret-scanned first; on a
// finding nothing is left on disk. The bundle is built in a temporary
// directory and renamed into place.
func WriteBundle(root string, run *Run, files BundleFiles) (string, error) {
	opts := files.Options
	started := run.Started
	if started.IsZero() {
		started = opts.now()
	}
	suite := unsafeName.ReplaceAllString(run.Suite, "_")
	if suite == "" || suite == "." || suite == ".." {
		suite = "cassette"
	}
	stamp := started.UTC().Format(bundleTimeLayout)
	parent := filepath.Join(root, suite)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", ioError(parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".bundle-*")
	if err != nil {
		return "", ioError(parent, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	dir := filepath.Join(parent, stamp)
	for n := 2; ; n++ {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			break
		}
		stamp = fmt.Sprintf("%s_%d", started.UTC().Format(bundleTimeLayout), n)
		dir = filepath.Join(parent, stamp)
	}
	content, err := bundleContent(run, files, suite, stamp, started)
	if err != nil {
		return "", err
	}
	if err := scan(dir, run, content, opts.Declared); err != nil {
		return "", err
	}
	for _, n := range sortedNames(content) {
		if err := writeAtomic(filepath.Join(tmp, filepath.FromSlash(n)), content[n]); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", ioError(dir, err)
	}
	return dir, nil
}

type inventoryEntry struct {
	Path   string  `json:"path"`
	SHA256 string  `json:"sha256"`
	Bytes  int64   `json:"bytes"`
	Kind   string  `json:"kind"`
	Schema *string `json:"schema"`
}

type indexEntry struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// bundleContent renders every file of a bundle, bundle.json last.
func bundleContent(run *Run, files BundleFiles, suite, stamp string, started time.Time) (map[string][]byte, error) {
	opts := files.Options
	out := map[string][]byte{}
	reports := files.Reports
	if reports == nil {
		var err error
		if reports, err = Render(run, opts); err != nil {
			return nil, err
		}
	}
	for n, b := range reports {
		if n == FileSummary {
			continue
		}
		out["reports/"+n] = b
	}
	ended := run.Finished
	if ended.IsZero() {
		ended = started.Add(run.Duration())
	}
	c := run.Counts()
	counts := map[string]int{"total": c.Total, "pass": c.Pass, "fail": c.Fail, "skip": c.Skipped}
	common := func(m map[string]any) map[string]any {
		m["schema_version"] = 1
		m["suite"] = suite
		m["timestamp"] = stamp
		return m
	}

	// summary.json: the PR-gate summary plus summary.v1's keys.
	_, omitted := run.sarif(opts)
	var sum map[string]any
	b, _ := json.Marshal(run.summary(opts, omitted))
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, err
	}
	sum["suite"], sum["timestamp"] = suite, stamp
	sum["started_at"], sum["ended_at"] = rfc3339(started), rfc3339(ended)
	sum["total"], sum["pass"], sum["fail"], sum["skip"] = c.Total, c.Pass, c.Fail, c.Skipped

	git := files.Git
	meta := common(map[string]any{
		"started_at": rfc3339(started), "ended_at": rfc3339(ended), "git": git,
		"runner": map[string]any{"tool": run.toolName(), "version": run.Tool.Version, "sha": run.Tool.SHA,
			"command": run.command(), "mode": run.Mode, "shard": run.Shard},
		"paths": map[string]any{"config": run.ConfigPath},
	})
	metrics := common(map[string]any{
		"timing": map[string]any{"start_epoch_s": started.Unix(), "end_epoch_s": ended.Unix(),
			"duration_s": int64(ended.Sub(started).Seconds())},
		"counts": counts,
	})

	// trace/events.jsonl
	var ev bytes.Buffer
	var running struct{ total, pass, fail, skip int }
	event := func(ts time.Time, kind, cs, msg string) {
		_ = jsonLine(&ev, map[string]any{"schema_version": 1, "suite": suite, "run_timestamp": stamp,
			"ts": rfc3339(ts), "kind": kind, "case": cs, "message": msg,
			"counters": map[string]int{"total": running.total, "pass": running.pass, "fail": running.fail, "skip": running.skip}})
	}
	event(started, "suite_start", "", run.command()+" "+run.Suite)
	at := started
	for _, cs := range run.reportCases() {
		at = at.Add(cs.Duration)
		running.total++
		switch {
		case cs.failed():
			running.fail++
		case cs.Status == StatusSkipped:
			running.skip++
		default:
			running.pass++
		}
		msg := string(cs.Status)
		if cs.failed() {
			msg += ": " + run.digest(cs).FirstFailingAssertion
		}
		event(at, "case_"+string(cs.Status), cs.ID(), msg)
	}
	if run.Err != nil {
		event(ended, "error", "", string(run.Reason())+": "+run.Err.Message)
	}
	event(ended, "suite_end", "", run.Message())

	// transcript/summary.txt
	var tr strings.Builder
	fmt.Fprintf(&tr, "%s %s — suite %s\n%s\nexit %d %s\n", run.toolName(), run.command(), run.Suite, run.Message(), run.Exit(), run.Reason())
	if ns := run.NextStepCommand(); ns != "" {
		fmt.Fprintf(&tr, "next step: %s\n", ns)
	}
	for _, cs := range run.reportCases() {
		fmt.Fprintf(&tr, "%-8s %s\n", cs.Status, cs.ID())
		if cs.failed() {
			for _, l := range strings.Split(strings.TrimRight(run.caseDetail(cs), "\n"), "\n") {
				fmt.Fprintf(&tr, "         %s\n", l)
			}
		}
	}

	// replay
	seed := uint64(0)
	if run.Seeds.Order != nil {
		seed = *run.Seeds.Order
	}
	command := run.suiteReplay()
	reproEnv := fmt.Sprintf("TZ=UTC\nCASSETTE_SUITE=%s\nCASSETTE_INVENTORY_SHA256=%s\nCASSETTE_SUITE_SHA256=%s\nCASSETTE_ORDER_SEED=%d\n",
		run.Suite, InventoryDigest(run.Inventory), sha256Hex(run.ConfigBytes), seed)
	repro := common(map[string]any{"clock_mode": "recorded", "seed": seed, "seed_decimal": strconv.FormatUint(seed, 10), "run_started_at": rfc3339(started),
		"run_start_epoch_s": started.Unix(), "command": command, "correlation_id": run.correlationID(opts.Golden)})

	// fixtures
	ids := []string{}
	for _, f := range files.Cassettes {
		p := localPath(f.Path)
		out["fixtures/"+p] = f.Data
		if !slices.Contains(ids, p) {
			ids = append(ids, p)
		}
	}
	sort.Strings(ids)
	fixtures := common(map[string]any{"fixture_ids": ids})

	// logs
	logIndex := []indexEntry{}
	for _, f := range files.Logs {
		name := localPath(f.Path)
		if ext := filepath.Ext(name); ext != ".log" && ext != ".txt" {
			name += ".log" // a log is text: never validated as JSON, never the index
		}
		p := "logs/" + name
		// Two logs of one name get a suffix: nothing written is overwritten.
		for n := 2; out[p] != nil; n++ {
			p = "logs/" + strings.TrimSuffix(name, ".log") + fmt.Sprintf("_%d", n) + filepath.Ext(name)
		}
		out[p] = f.Data
		logIndex = append(logIndex, indexEntry{Path: p, Bytes: int64(len(f.Data)), SHA256: sha256Hex(f.Data)})
	}
	sort.Slice(logIndex, func(i, j int) bool { return logIndex[i].Path < logIndex[j].Path })

	put := func(name string, v any) error {
		b, err := indentJSON(v)
		out[name] = b
		return err
	}
	for name, v := range map[string]any{"summary.json": sum, "meta.json": meta, "metrics.json": metrics,
		"repro.json": repro, "fixtures.json": fixtures,
		"logs/index.json":        common(map[string]any{"files": logIndex}),
		"screenshots/index.json": common(map[string]any{"files": []indexEntry{}})} {
		if err := put(name, v); err != nil {
			return nil, err
		}
	}
	out["trace/events.jsonl"] = ev.Bytes()
	out["transcript/summary.txt"] = []byte(tr.String())
	out["repro.txt"] = []byte(reproEnvPrefix(reproEnv) + command + "\n")
	out["repro.env"] = []byte(reproEnv)
	out["diagnostics/env_redacted.txt"] = redactEnv(files.Env, opts.Declared)

	// tree.txt lists every file but itself and bundle.json.
	var tree strings.Builder
	for _, n := range sortedNames(out) {
		fmt.Fprintf(&tree, "%10d  %s\n", len(out[n]), n)
	}
	out["diagnostics/tree.txt"] = []byte(tree.String())

	var inv []inventoryEntry
	for _, n := range sortedNames(out) {
		kind, schema := fileKind(n)
		inv = append(inv, inventoryEntry{Path: n, SHA256: sha256Hex(out[n]), Bytes: int64(len(out[n])), Kind: kind, Schema: schema})
	}
	ref := func(p, schema string) map[string]string {
		m := map[string]string{"path": p}
		if schema != "" {
			m["schema"] = schema
		}
		return m
	}
	manifest := map[string]any{
		"schema":       map[string]any{"name": BundleSchemaName, "major": BundleSchemaMajor, "minor": BundleSchemaMinor},
		"suite":        suite,
		"timestamp":    stamp,
		"generated_at": rfc3339(opts.now()),
		"started_at":   rfc3339(started),
		"ended_at":     rfc3339(ended),
		"counts":       counts,
		"git":          git,
		"artifacts": map[string]any{
			"metadata":    ref("meta.json", "meta.v1"),
			"metrics":     ref("metrics.json", "metrics.v1"),
			"summary":     ref("summary.json", "summary.v1"),
			"diagnostics": map[string]any{"env_redacted": ref("diagnostics/env_redacted.txt", ""), "tree": ref("diagnostics/tree.txt", "")},
			"trace":       map[string]any{"events": ref("trace/events.jsonl", "trace-events.v1")},
			"transcript":  map[string]any{"summary": ref("transcript/summary.txt", "")},
			"logs":        map[string]any{"index": ref("logs/index.json", "logs-index.v1")},
			"screenshots": map[string]any{"index": ref("screenshots/index.json", "screenshots-index.v1")},
			"fixtures":    ref("fixtures.json", "fixtures.v1"),
			"replay": map[string]any{"command": ref("repro.txt", ""), "environment": ref("repro.env", ""),
				"metadata": ref("repro.json", "repro.v1")},
			"reports": map[string]any{"junit": ref("reports/"+FileJUnit, ""), "sarif": ref("reports/"+FileSARIF, ""),
				"report": ref("reports/"+FileReport, ""), "log": ref("reports/"+FileLog, LogSchema)},
		},
		"files": inv,
	}
	if err := put("bundle.json", manifest); err != nil {
		return nil, err
	}
	return out, nil
}

func reproEnvPrefix(env string) string {
	return "env " + strings.Join(strings.Fields(env), " ") + " "
}

// fileKind is the inventory kind and schema id of a bundle file.
func fileKind(p string) (string, *string) {
	s := func(v string) *string { return &v }
	switch p {
	case "summary.json":
		return "metrics", s("summary.v1")
	case "meta.json":
		return "metadata", s("meta.v1")
	case "metrics.json":
		return "metrics", s("metrics.v1")
	case "trace/events.jsonl":
		return "trace", s("trace-events.v1")
	case "fixtures.json":
		return "fixture", s("fixtures.v1")
	case "repro.json":
		return "replay", s("repro.v1")
	case "repro.txt", "repro.env":
		return "replay", nil
	case "logs/index.json":
		return "log", s("logs-index.v1")
	case "screenshots/index.json":
		return "screenshot", s("screenshots-index.v1")
	case "transcript/summary.txt":
		return "transcript", nil
	}
	switch {
	case strings.HasPrefix(p, "diagnostics/"):
		return "diagnostics", nil
	case strings.HasPrefix(p, "logs/"):
		return "log", nil
	case strings.HasPrefix(p, "fixtures/"):
		return "fixture", nil
	case p == "reports/"+FileLog:
		return "log", s(LogSchema)
	}
	return "opaque", nil
}

// envKept are the variables whose values a bundle keeps: they describe the
// machine and the toolchain and hold no secrets. Every other value is
// replaced by [REDACTED] — a denylist of credential-like names misses
// DATABASE_URL, SENTRY_DSN, MY_PASS and the like.
var envKept = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "SHELL": true, "PWD": true, "TMPDIR": true, "TZ": true,
	"LANG": true, "LC_ALL": true, "LC_CTYPE": true, "TERM": true, "CI": true, "NO_COLOR": true,
	"GOOS": true, "GOARCH": true, "GOPATH": true, "GOROOT": true, "GOFLAGS": true, "GOMAXPROCS": true,
	"GOCACHE": true, "GOMODCACHE": true, "GOTOOLCHAIN": true, "CGO_ENABLED": true,
	"GITHUB_ACTIONS": true, "GITHUB_WORKFLOW": true, "GITHUB_RUN_ID": true, "GITHUB_RUN_ATTEMPT": true,
	"GITHUB_SHA": true, "GITHUB_REF": true, "GITHUB_REPOSITORY": true, "GITHUB_EVENT_NAME": true,
	"RUNNER_OS": true, "RUNNER_ARCH": true, "CASSETTE_CA_DIR": true,
}

// redactEnv renders the environment sorted by name, keeping the values of
// the variables in envKept (scrubbed of declared values and known key
// formats all the same) and replacing every other value by [REDACTED].
func redactEnv(env []string, declared map[string]string) []byte {
	lines := make([]string, 0, len(env))
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		_, isDeclared := declared[name]
		switch {
		case envKept[name] && !isDeclared:
			val = redactValue(val, declared)
		case val != "":
			val = "[REDACTED]"
		}
		lines = append(lines, name+"="+val)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// ValidateBundle checks a bundle directory against the v1 contract of
// specs/004: bundle.json's schema (name, major; any minor), required keys and
// typed artifact sections; required files; every inventory entry (safe path,
// existing file, bytes and sha256 equal to the file's); every non-empty
// *.json valid JSON and every *.jsonl/*.ndjson valid JSON lines; each typed
// artifact's required keys; trace events with suite_start and suite_end and
// the bundle's timestamp; and logs/screenshots indexes that agree with the
// inventory. It returns every problem found, none for a valid bundle.
func ValidateBundle(dir string) []cassettes.Problem {
	v := &bundleValidator{dir: dir}
	v.run()
	return v.probs
}

type bundleValidator struct {
	dir   string
	probs []cassettes.Problem
}

func (v *bundleValidator) add(file string, line int, field, msg, want string) {
	v.probs = append(v.probs, cassettes.Problem{File: filepath.Join(v.dir, filepath.FromSlash(file)), Line: line, Field: field, Message: msg, Expected: want})
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
	if fi, err := os.Stat(v.dir); err != nil || !fi.IsDir() {
		v.add("", 0, "", "bundle directory does not exist", "a directory written by cassette verify --bundle-dir")
		return
	}
	for _, f := range requiredBundleFiles {
		if _, err := os.Stat(filepath.Join(v.dir, filepath.FromSlash(f))); err != nil {
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
	v.index("logs/index.json", inv)
	v.index("screenshots/index.json", inv)
}

func (v *bundleValidator) readJSONQuiet(rel string) (map[string]any, bool) {
	data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(rel)))
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
		data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(p)))
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
	_ = filepath.WalkDir(v.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(v.dir, p)
		rel = filepath.ToSlash(rel)
		switch ext := path.Ext(rel); ext {
		case ".json", ".jsonl", ".ndjson":
			data, err := os.ReadFile(p)
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
	data, err := os.ReadFile(filepath.Join(v.dir, "trace", "events.jsonl"))
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

// index checks that a logs/screenshots index agrees with the inventory.
func (v *bundleValidator) index(file string, inv map[string]indexEntry) {
	m, ok := v.readJSONQuiet(file)
	if !ok {
		return
	}
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
		want, ok := inv[p]
		switch {
		case !ok:
			v.add(file, 0, field+".path", fmt.Sprintf("%s is not in bundle.json's file inventory", p), "every indexed file inventoried")
		case int64(e["bytes"].(float64)) != want.Bytes || e["sha256"].(string) != want.SHA256:
			v.add(file, 0, field, fmt.Sprintf("bytes/sha256 of %s differ from bundle.json's inventory", p), fmt.Sprintf("%d bytes, sha256 %s", want.Bytes, want.SHA256))
		}
	}
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
