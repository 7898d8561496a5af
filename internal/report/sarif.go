package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// SARIF constants.
const (
	SARIFVersion   = "2.1.0"
	SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// DefaultSARIFLimit is the number of results kept when Options.SARIFLimit
	// is 0: well under GitHub's 25,000 results per run, so upload never
	// fails on count.
	DefaultSARIFLimit = 5000
	// sarifPropertyBag is the run property bag that records truncation
	// (the spec's runs[].properties.assay, under our tool's name).
	sarifPropertyBag = "cassette"
)

// The SARIF subset we write. Plain structs rather than go-sarif: its
// generated types serialize many empty arrays as null, and we need a small,
// deterministic subset; the tests validate the output against the official
// schema.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	AutomationDetails sarifAutomation   `json:"automationDetails"`
	Invocations       []sarifInvocation `json:"invocations"`
	Results           []sarifResult     `json:"results"`
	Properties        map[string]any    `json:"properties,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name"`
	ShortDescription     sarifMessage  `json:"shortDescription"`
	FullDescription      sarifMessage  `json:"fullDescription"`
	Help                 sarifMessage  `json:"help"`
	HelpURI              string        `json:"helpUri"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
	ExitCode            int  `json:"exitCode"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]string `json:"properties,omitempty"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

// sarifSrcRoot is the uriBaseId of every location: the repository root, as
// GitHub code scanning resolves relative URIs.
const sarifSrcRoot = "%SRCROOT%"

// inRepository reports whether a slash-separated path names a file that the
// repository holds: relative, not above the root, and not under a hidden
// directory such as .cassette/ (reports, fake logs) that git ignores.
func inRepository(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, ":") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || (strings.HasPrefix(part, ".") && part != ".") {
			return false
		}
	}
	return true
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifLevel maps an outcome to a SARIF level (specs/002 §6.4): blocking
// failures are errors, quarantined (flaky) failures warnings.
func levelRank(l string) int {
	switch l {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// sarif builds sarif.json and returns it with the number of eligible results
// omitted by truncation. Selection is deterministic: errors first, then
// warnings, then notes; within a level, report order (adapter, scenario,
// drift index).
func (r *Run) sarif(opts Options) (sarifLog, int) {
	limit := opts.SARIFLimit
	if limit <= 0 {
		limit = DefaultSARIFLimit
	}
	b := &sarifBuilder{run: r, synthetic: cmpOr(r.ConfigPath, "cassette.yaml"), rules: map[string]sarifRule{}}
	b.runError()
	b.cases()
	b.coverage()
	ruleList, index := b.ruleList()
	results := b.results
	sort.SliceStable(results, func(i, j int) bool { return levelRank(results[i].Level) < levelRank(results[j].Level) })
	omitted := 0
	if len(results) > limit {
		omitted = len(results) - limit
		results = results[:limit]
	}
	for i := range results {
		results[i].RuleIndex = index[results[i].RuleID]
	}
	if results == nil {
		results = []sarifResult{}
	}
	name := cmpOr(r.Tool.Name, "cassette")
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: name, Version: r.Tool.Version, InformationURI: r.Tool.URI, Rules: ruleList}},
		// One category per command, so that a refresh upload does not close
		// the alerts of the last verify upload (GitHub: the category is the
		// id up to its last slash).
		AutomationDetails: sarifAutomation{ID: name + "/" + r.command() + "/"},
		Invocations:       []sarifInvocation{{ExecutionSuccessful: r.Exit() <= outcome.ExitFail, ExitCode: int(r.Exit())}},
		Results:           results,
	}
	if omitted > 0 {
		run.Properties = map[string]any{sarifPropertyBag: map[string]any{
			"truncated":     true,
			"omitted_count": omitted,
			"message":       fmt.Sprintf("%d results omitted due to GitHub upload limits (kept %d; errors first); see summary.json for authoritative counts", omitted, limit),
		}}
	}
	return sarifLog{Schema: SARIFSchemaURI, Version: SARIFVersion, Runs: []sarifRun{run}}, omitted
}

// sarifBuilder collects the results of a run and the rules they use.
type sarifBuilder struct {
	run       *Run
	synthetic string // the location of results without a file of their own
	rules     map[string]sarifRule
	results   []sarifResult
}

// add records one result (and its rule, the first time).
func (b *sarifBuilder) add(ruleID, ruleDesc, level, msg, uri string, line int, caseID, field string) {
	if _, ok := b.rules[ruleID]; !ok {
		b.rules[ruleID] = sarifRule{ID: ruleID, Name: ruleName(ruleID), ShortDescription: sarifMessage{ruleDesc}, FullDescription: sarifMessage{ruleFull(ruleID)},
			Help: sarifMessage{ruleHelp(ruleID, b.run.suiteReplay())}, HelpURI: helpURI(b.run.Tool.URI, ruleID), DefaultConfiguration: sarifRuleConf{"error"}}
	}
	uri = slash(uri)
	if !inRepository(uri) {
		// A file the repository does not hold (a fake's log under
		// .cassette/, an absolute path): report at the config instead,
		// and name the file in the message.
		if uri != "" && !strings.Contains(msg, uri) {
			msg += " (" + uri + ")"
		}
		uri, line = b.synthetic, 0
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: sarifSrcRoot},
		Region: sarifRegion{StartLine: max(line, 1)}}}
	// The fingerprint is the finding's identity — rule, case, field and
	// file, never the line or the message — so that an alert is tracked
	// across runs even when the cassette's lines move.
	fp := sha256Hex([]byte(ruleID + "\x1f" + caseID + "\x1f" + field + "\x1f" + uri))[:32]
	res := sarifResult{RuleID: ruleID, Level: level, Message: sarifMessage{msg}, Locations: []sarifLocation{loc},
		PartialFingerprints: map[string]string{"primaryLocationLineHash": fp + ":1"}}
	if caseID != "" {
		res.Properties = map[string]string{"case_id": caseID}
	}
	b.results = append(b.results, res)
}

// runError adds the run-level error: one result per problem, at its file.
func (b *sarifBuilder) runError() {
	r := b.run
	if r.Err == nil {
		return
	}
	rc := string(r.Reason())
	msg := r.Err.Message
	if ns := r.Err.NextStep; ns != "" {
		msg += " Next step: " + ns
	}
	if len(r.Err.Problems) == 0 {
		b.add(rc, "Run-level error "+rc, "error", msg, b.synthetic, 0, "", "")
	}
	for i, p := range r.Err.Problems {
		b.add(rc, "Run-level error "+rc, "error", p.String(), p.File, p.Line, "", fmt.Sprintf("%s#%d", p.Field, i))
	}
}

// cases adds the failed cases: one result per drift, at its cassette line,
// or one for a case that failed without drifts.
func (b *sarifBuilder) cases() {
	r := b.run
	for _, c := range r.sortedCases() {
		if !c.Failed() || (r.Coverage != nil && c.Reason == outcome.EUncoveredCall) { // coverage() reports uncovered shapes
			continue
		}
		level := "error"
		if c.Quarantined(r.now()) {
			level = "warning"
		}
		id := caseID(c.Adapter, c.Scenario)
		if len(c.Drifts) > 0 {
			for _, d := range c.Drifts {
				class := cmpOr(d.Class, "output")
				b.add("drift/"+class, fmt.Sprintf("The fake's %s differs from the recorded cassette", class), level,
					c.ID()+": "+driftText(d), c.CassettePath, d.Line, id, d.Field+d.JSONPath)
			}
			continue
		}
		rc := string(c.ReasonAt(r.now()))
		msg := c.ID() + ": " + c.Message
		if c.Message == "" {
			msg = fmt.Sprintf("%s: %s (%s)", c.ID(), c.Status, rc)
		}
		b.add(rc, "Case failed with "+rc, level, msg, c.CassettePath, 0, id, "")
	}
}

// ruleList returns the rules sorted by id, and each id's index.
func (b *sarifBuilder) ruleList() ([]sarifRule, map[string]int) {
	ids := make([]string, 0, len(b.rules))
	for id := range b.rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	index := map[string]int{}
	list := make([]sarifRule, len(ids))
	for i, id := range ids {
		index[id] = i
		list[i] = b.rules[id]
	}
	return list, index
}

// helpURI is where a rule is explained, in the docs site's pages as the
// repository holds them: a reason code's section of the troubleshooting
// page (generated from the registry, so every code has one), the drift
// classes of the reports reference, or coverage.
func helpURI(tool, ruleID string) string {
	base := strings.TrimSuffix(cmpOr(tool, "https://github.com/cassette-dev/cassette"), "/") + "/blob/main/docs/"
	if strings.HasPrefix(ruleID, "drift/") {
		return base + "reference/reports.md"
	}
	if ruleID == RuleUncoveredCallShape {
		return base + "concepts/coverage.md"
	}
	return base + "troubleshooting.md#" + strings.ToLower(ruleID)
}

// ruleFull is a rule's full description (GitHub shows it with the alert):
// what the rule finds, without the remedy, which is its help.
func ruleFull(ruleID string) string {
	if class, ok := strings.CutPrefix(ruleID, "drift/"); ok {
		return "The " + class + " the fake gave for a recorded input, normalized by the adapter's normalizers, differs byte for byte " +
			"from the " + class + " the cassette recorded from the real service, normalized the same way: the fake no longer behaves " +
			"like the real service for this call shape."
	}
	if ruleID == RuleUncoveredCallShape {
		return "A call shape that the project's own tests send to an adapter's fake, as cassette coverage observed it, " +
			"and that no cassette of the adapter records: the fake's answer to it was never compared with the real service's."
	}
	switch outcome.Reason(ruleID).Exit() {
	case outcome.ExitUser:
		return ruleID + ": cassette could not run the check because of a configuration, cassette or usage error (exit 2); no fake was judged."
	case outcome.ExitInfra:
		return ruleID + ": infrastructure failed (exit 3): a fake, the real service, the network or the forge could not be reached, " +
			"started or answered in time; this is never a drift, and no fake was judged."
	}
	return ruleID + ": a case failed (exit 1): the fake, or the real service in a refresh, did not give what the cassette recorded."
}

// ruleHelp is a rule's help text: what it means and what to do.
func ruleHelp(ruleID, replay string) string {
	if class, ok := strings.CutPrefix(ruleID, "drift/"); ok {
		return "The fake's " + class + " differs from the recorded cassette after normalization. Reproduce it with `" +
			replay + " --case ADAPTER/SCENARIO` (the result names the case), then fix the fake; if the real service changed, re-record the cassette with `cassette record`."
	}
	if ruleID == RuleUncoveredCallShape {
		return "The project's tests sent this call shape to the adapter's fake, and no cassette of the adapter has it: nothing proves that the fake answers it as the real service does. Run the record command of the fix against the real side, commit the cassette, then `cassette verify`."
	}
	rc := outcome.Reason(ruleID)
	switch rc.Exit() {
	case outcome.ExitUser:
		return ruleID + ": a configuration or cassette error (exit 2). The result's location is the file and line at fault; `cassette validate` lists every problem."
	case outcome.ExitInfra:
		return ruleID + ": an infrastructure failure (exit 3): a fake, the real service or the forge could not be reached or started. The result's message gives the next step."
	}
	return ruleID + ": the case failed (exit 1). The result's message says how; replay it with `" + replay + " --case ADAPTER/SCENARIO`."
}

func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, c := range id {
		if c == '/' || c == '_' || c == '-' || c == '.' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteRune(c)
	}
	return b.String()
}

func slash(p string) string { return strings.ReplaceAll(p, `\`, "/") }
