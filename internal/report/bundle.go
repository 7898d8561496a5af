package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The bundle schema (specs/004): our own name, major 1, minor 0.
const (
	BundleSchemaName  = "cassette-artifacts"
	BundleSchemaMajor = 1
	BundleSchemaMinor = 0
	bundleTimeLayout  = "20060102_150405"
)

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
	dir, err := buildBundle(root, run, files)
	if err != nil {
		removeEmpty(root, run.Suite) // never an empty bundle folder
		if e, ok := err.(*outcome.Error); ok && e.Reason == outcome.ESecretLeak {
			cp := *e
			cp.Message = fmt.Sprintf("refusing to write the bundle: %d credential(s) found by the secret scan; no bundle was written (redact the value at its source: declare its variable under credentials: in cassette.yaml)", len(e.Problems))
			err = &cp
		}
	}
	return dir, err
}

// removeEmpty removes the folders a failed WriteBundle made, root/<suite>
// and root, when they hold nothing (a folder that holds anything stays).
func removeEmpty(root, suite string) {
	if os.Remove(filepath.Join(root, bundleSuite(suite))) == nil {
		_ = os.Remove(root)
	}
}

// bundleSuite is the folder name of a suite's bundles.
func bundleSuite(suite string) string {
	suite = unsafeName.ReplaceAllString(suite, "_")
	if suite == "" || suite == "." || suite == ".." {
		return "cassette"
	}
	return suite
}

func buildBundle(root string, run *Run, files BundleFiles) (string, error) {
	opts := files.Options
	started := run.Started
	if started.IsZero() {
		started = opts.now()
	}
	suite := bundleSuite(run.Suite)
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
	run = redactPayloads(run, opts.Declared)
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

// BundleRoot is the --bundle-dir the bundle in dir was written under,
// when dir still sits where WriteBundle put it, at root/<suite>/<timestamp>:
// its name is a bundle timestamp and, when its bundle.json can be read,
// that file's suite and timestamp name it and its parent. ok is false for a
// bundle copied, downloaded or renamed elsewhere: the directories above it
// are not a bundle root.
func BundleRoot(dir string) (root string, ok bool) {
	dir = filepath.Clean(dir)
	stamp := filepath.Base(dir)
	if !isBundleStamp(stamp) {
		return "", false
	}
	if data, err := os.ReadFile(filepath.Join(dir, "bundle.json")); err == nil {
		var b struct {
			Suite     string `json:"suite"`
			Timestamp string `json:"timestamp"`
		}
		abs, err := filepath.Abs(dir)
		if err != nil || json.Unmarshal(data, &b) != nil {
			return "", false
		}
		if (b.Suite != "" && b.Suite != filepath.Base(filepath.Dir(abs))) || (b.Timestamp != "" && b.Timestamp != stamp) {
			return "", false
		}
	}
	return filepath.Join(dir, "..", ".."), true
}

// isBundleStamp reports whether name is one WriteBundle gives a bundle's
// directory: its start time, with _2, _3 … when that was taken.
func isBundleStamp(name string) bool {
	if len(name) < len(bundleTimeLayout) {
		return false
	}
	if _, err := time.Parse(bundleTimeLayout, name[:len(bundleTimeLayout)]); err != nil {
		return false
	}
	rest := name[len(bundleTimeLayout):]
	if rest == "" {
		return true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "_"))
	return strings.HasPrefix(rest, "_") && err == nil && n >= 2 && strconv.Itoa(n) == rest[1:]
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
	b := &bundleBuilder{run: run, opts: files.Options, suite: suite, stamp: stamp, started: started, ended: run.Finished, out: map[string][]byte{}}
	if b.ended.IsZero() {
		b.ended = started.Add(run.Duration())
	}
	if err := b.reports(files.Reports); err != nil {
		return nil, err
	}
	sum, err := b.summary()
	if err != nil {
		return nil, err
	}
	fixtures := b.fixtures(files.Cassettes)
	logIndex := b.logs(files.Logs)
	reproEnv, command, repro := b.repro()
	for name, v := range map[string]any{"summary.json": sum, "meta.json": b.meta(files.Git), "metrics.json": b.metrics(),
		"repro.json": repro, "fixtures.json": fixtures,
		"logs/index.json":        b.common(map[string]any{"files": logIndex}),
		"screenshots/index.json": b.common(map[string]any{"files": []indexEntry{}})} {
		if err := b.put(name, v); err != nil {
			return nil, err
		}
	}
	b.out["trace/events.jsonl"] = b.traceEvents()
	b.out["transcript/summary.txt"] = b.transcript()
	b.out["repro.txt"] = []byte(reproEnvPrefix(reproEnv) + command + "\n")
	b.out["repro.env"] = []byte(reproEnv)
	b.out["diagnostics/env_redacted.txt"] = redactEnv(files.Env, b.opts.Declared)
	b.out["diagnostics/tree.txt"] = b.tree() // every file but itself and bundle.json
	if err := b.put("bundle.json", b.manifest(files.Git)); err != nil {
		return nil, err
	}
	return b.out, nil
}

// bundleBuilder renders the files of one bundle into out.
type bundleBuilder struct {
	run            *Run
	opts           Options
	suite, stamp   string
	started, ended time.Time
	out            map[string][]byte
}

func (b *bundleBuilder) put(name string, v any) error {
	data, err := indentJSON(v)
	b.out[name] = data
	return err
}

// common adds the keys every typed artifact carries.
func (b *bundleBuilder) common(m map[string]any) map[string]any {
	m["schema_version"] = 1
	m["suite"] = b.suite
	m["timestamp"] = b.stamp
	return m
}

func (b *bundleBuilder) counts() map[string]int {
	c := b.run.Counts()
	return map[string]int{"total": c.Total, "pass": c.Pass, "fail": c.Fail, "skip": c.Skipped}
}

// reports copies the run's report files under reports/ (rendering them
// when the caller has not), all but summary.json, which the bundle has at
// its root.
func (b *bundleBuilder) reports(reports Files) error {
	if reports == nil {
		var err error
		if reports, err = Render(b.run, b.opts); err != nil {
			return err
		}
	}
	for n, data := range reports {
		if n != FileSummary {
			b.out["reports/"+n] = data
		}
	}
	return nil
}

// summary is the PR-gate summary plus summary.v1's keys.
func (b *bundleBuilder) summary() (map[string]any, error) {
	_, omitted := b.run.sarif(b.opts)
	var sum map[string]any
	data, _ := json.Marshal(b.run.summary(b.opts, omitted))
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, err
	}
	c := b.run.Counts()
	sum["suite"], sum["timestamp"] = b.suite, b.stamp
	sum["started_at"], sum["ended_at"] = rfc3339(b.started), rfc3339(b.ended)
	sum["total"], sum["pass"], sum["fail"], sum["skip"] = c.Total, c.Pass, c.Fail, c.Skipped
	return sum, nil
}

func (b *bundleBuilder) meta(git GitInfo) map[string]any {
	run := b.run
	return b.common(map[string]any{
		"started_at": rfc3339(b.started), "ended_at": rfc3339(b.ended), "git": git,
		"runner": map[string]any{"tool": run.toolName(), "version": run.Tool.Version, "sha": run.Tool.SHA,
			"command": run.command(), "mode": run.Mode, "shard": run.Shard},
		"paths": map[string]any{"config": run.ConfigPath},
	})
}

func (b *bundleBuilder) metrics() map[string]any {
	return b.common(map[string]any{
		"timing": map[string]any{"start_epoch_s": b.started.Unix(), "end_epoch_s": b.ended.Unix(),
			"duration_s": int64(b.ended.Sub(b.started).Seconds())},
		"counts": b.counts(),
	})
}

// traceEvents is trace/events.jsonl: suite_start, one event per case with
// the running counters, a run-level error, suite_end.
func (b *bundleBuilder) traceEvents() []byte {
	run := b.run
	var ev bytes.Buffer
	var running struct{ total, pass, fail, skip int }
	event := func(ts time.Time, kind, cs, msg string) {
		_ = jsonLine(&ev, map[string]any{"schema_version": 1, "suite": b.suite, "run_timestamp": b.stamp,
			"ts": rfc3339(ts), "kind": kind, "case": cs, "message": msg,
			"counters": map[string]int{"total": running.total, "pass": running.pass, "fail": running.fail, "skip": running.skip}})
	}
	event(b.started, "suite_start", "", run.command()+" "+run.Suite)
	at := b.started
	for _, cs := range run.reportCases() {
		at = at.Add(cs.Duration)
		running.total++
		switch {
		case cs.Failed():
			running.fail++
		case cs.Status == verdict.StatusSkipped:
			running.skip++
		default:
			running.pass++
		}
		msg := string(cs.Status)
		if cs.Failed() {
			msg += ": " + run.digest(cs).FirstFailingAssertion
		}
		event(at, "case_"+string(cs.Status), cs.ID(), msg)
	}
	if run.Err != nil {
		event(b.ended, "error", "", string(run.Reason())+": "+run.Err.Message)
	}
	event(b.ended, "suite_end", "", run.Message())
	return ev.Bytes()
}

// transcript is transcript/summary.txt: the outcome, then each case, with
// the detail of those that failed.
func (b *bundleBuilder) transcript() []byte {
	run := b.run
	var tr strings.Builder
	fmt.Fprintf(&tr, "%s %s — suite %s\n%s\nexit %d %s\n", run.toolName(), run.command(), run.Suite, run.Message(), run.Exit(), run.Reason())
	if ns := run.NextStepCommand(); ns != "" {
		fmt.Fprintf(&tr, "next step: %s\n", ns)
	}
	for _, cs := range run.reportCases() {
		fmt.Fprintf(&tr, "%-8s %s\n", cs.Status, cs.ID())
		if cs.Failed() {
			for _, l := range strings.Split(strings.TrimRight(run.caseDetail(cs), "\n"), "\n") {
				fmt.Fprintf(&tr, "         %s\n", l)
			}
		}
	}
	return []byte(tr.String())
}

// repro returns repro.env, the replay command and repro.json.
func (b *bundleBuilder) repro() (env, command string, repro map[string]any) {
	run := b.run
	seed := uint64(0)
	if run.Seeds.Order != nil {
		seed = *run.Seeds.Order
	}
	command = run.suiteReplay()
	env = fmt.Sprintf("TZ=UTC\nCASSETTE_SUITE=%s\nCASSETTE_INVENTORY_SHA256=%s\nCASSETTE_SUITE_SHA256=%s\nCASSETTE_ORDER_SEED=%d\n",
		run.Suite, InventoryDigest(run.Inventory), sha256Hex(run.ConfigBytes), seed)
	repro = b.common(map[string]any{"clock_mode": "recorded", "seed": seed, "seed_decimal": strconv.FormatUint(seed, 10), "run_started_at": rfc3339(b.started),
		"run_start_epoch_s": b.started.Unix(), "command": command, "correlation_id": run.correlationID(b.opts.Golden)})
	return env, command, repro
}

// fixtures copies the cassettes under fixtures/ and returns fixtures.json.
func (b *bundleBuilder) fixtures(cassettes []File) map[string]any {
	ids := []string{}
	for _, f := range cassettes {
		p := localPath(f.Path)
		b.out["fixtures/"+p] = f.Data
		if !slices.Contains(ids, p) {
			ids = append(ids, p)
		}
	}
	sort.Strings(ids)
	return b.common(map[string]any{"fixture_ids": ids})
}

// logs copies the logs under logs/ and returns their index.
func (b *bundleBuilder) logs(logs []File) []indexEntry {
	index := []indexEntry{}
	for _, f := range logs {
		name := localPath(f.Path)
		if ext := filepath.Ext(name); ext != ".log" && ext != ".txt" {
			name += ".log" // a log is text: never validated as JSON, never the index
		}
		p := "logs/" + name
		// Two logs of one name get a suffix: nothing written is overwritten.
		for n := 2; b.out[p] != nil; n++ {
			p = "logs/" + strings.TrimSuffix(name, ".log") + fmt.Sprintf("_%d", n) + filepath.Ext(name)
		}
		data := scrubbedLog(f.Data, b.opts.Declared) // as the reports' own copy is (scrubLogs)
		b.out[p] = data
		index = append(index, indexEntry{Path: p, Bytes: int64(len(data)), SHA256: sha256Hex(data)})
	}
	sort.Slice(index, func(i, j int) bool { return index[i].Path < index[j].Path })
	return index
}

// tree is diagnostics/tree.txt: the size and name of every file so far.
func (b *bundleBuilder) tree() []byte {
	var tree strings.Builder
	for _, n := range sortedNames(b.out) {
		fmt.Fprintf(&tree, "%10d  %s\n", len(b.out[n]), n)
	}
	return []byte(tree.String())
}

// manifest is bundle.json: the schema, the typed artifact sections and the
// inventory of every other file.
func (b *bundleBuilder) manifest(git GitInfo) map[string]any {
	var inv []inventoryEntry
	for _, n := range sortedNames(b.out) {
		kind, schema := fileKind(n)
		inv = append(inv, inventoryEntry{Path: n, SHA256: sha256Hex(b.out[n]), Bytes: int64(len(b.out[n])), Kind: kind, Schema: schema})
	}
	ref := func(p, schema string) map[string]string {
		m := map[string]string{"path": p}
		if schema != "" {
			m["schema"] = schema
		}
		return m
	}
	return map[string]any{
		"schema":       map[string]any{"name": BundleSchemaName, "major": BundleSchemaMajor, "minor": BundleSchemaMinor},
		"suite":        b.suite,
		"timestamp":    b.stamp,
		"generated_at": rfc3339(b.opts.now()),
		"started_at":   rfc3339(b.started),
		"ended_at":     rfc3339(b.ended),
		"counts":       b.counts(),
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
