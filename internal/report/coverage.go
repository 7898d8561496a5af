package report

import (
	"fmt"
	"html"
	"strings"
)

// FileCoverage is coverage.json, written for a run of `cassette coverage`.
const FileCoverage = "coverage.json"

// CoverageSchema names the format of coverage.json.
const CoverageSchema = "cassette.coverage.v1"

// RuleUncoveredCallShape is the SARIF rule of a call shape that the
// project's tests send to a fake and that no cassette backs.
const RuleUncoveredCallShape = "cassette/uncovered-call-shape"

// coverageJSON renders coverage.json: the model with the run's exit code
// and the totals, byte-stable for equal inputs.
func (r *Run) coverageJSON() ([]byte, error) {
	covered, observed := 0, 0
	for _, a := range r.Coverage.Adapters {
		covered += a.CoveredShapes()
		observed += len(a.Shapes)
	}
	pct := 100.0
	if observed > 0 {
		pct = float64(int(1000*float64(covered)/float64(observed)+0.5)) / 10
	}
	return indentJSON(struct {
		Schema   string            `json:"schema"`
		ExitCode int               `json:"exit_code"`
		Reason   string            `json:"reason_code,omitempty"`
		Covered  int               `json:"covered"`
		Observed int               `json:"observed"`
		Percent  float64           `json:"percent"`
		Config   string            `json:"config"`
		Adapters []CoverageAdapter `json:"adapters"`
		Modelled *CoverageModelled `json:"modelled,omitempty"`
	}{CoverageSchema, int(r.Exit()), string(r.Reason()), covered, observed, pct, r.ConfigPath, r.Coverage.Adapters, r.Coverage.Modelled})
}

// coverage adds a result for each uncovered shape, at its adapter in
// cassette.yaml, with the record command as the fix: an error when the
// adapter fails, a warning when its coverage.min tolerates it.
func (b *sarifBuilder) coverage() {
	if b.run.Coverage == nil {
		return
	}
	for _, a := range b.run.Coverage.Adapters {
		level := "warning"
		if a.Failing() {
			level = "error"
		}
		for _, s := range a.Shapes {
			if s.Covered {
				continue
			}
			msg := fmt.Sprintf("%s: no cassette backs the call shape `%s`, which %s made (%s).", a.Name, s.Shape, callers(s.Tests), plural(s.Calls, "call"))
			if a.Status == CoverageUnrecorded {
				msg += " The adapter has no cassette at all: record a baseline cassette."
			}
			if s.Record != "" {
				msg += " Record it: " + s.Record
			}
			if s.Note != "" {
				msg += " (first " + s.Note + ")"
			}
			b.add(RuleUncoveredCallShape, "A call shape the tests send to a fake is backed by no cassette", level, msg,
				b.synthetic, a.Line, caseID(a.Name, s.Shape), s.Shape)
			if s.Record != "" && s.Scenario != "" {
				b.results[len(b.results)-1].Fixes = []sarifFix{recordFix(s.Record, "cassettes/"+a.Name+"/"+s.Scenario+".yaml")}
			}
		}
	}
}

// sarifFix is a SARIF fix: the record command, which writes the cassette.
// SARIF requires each fix to name the files it changes, so it names the
// cassette the command creates, with an empty edit at its start.
type sarifFix struct {
	Description     sarifMessage        `json:"description"`
	ArtifactChanges []sarifArtifactEdit `json:"artifactChanges"`
}

type sarifArtifactEdit struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion sarifEmptyRegion `json:"deletedRegion"`
}

type sarifEmptyRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

func recordFix(command, cassette string) sarifFix {
	return sarifFix{Description: sarifMessage{"Record the call from the real side: " + command},
		ArtifactChanges: []sarifArtifactEdit{{ArtifactLocation: sarifArtifact{URI: cassette, URIBaseID: sarifSrcRoot},
			Replacements: []sarifReplacement{{DeletedRegion: sarifEmptyRegion{1, 1, 1, 1}}}}}}
}

func callers(tests []string) string {
	switch len(tests) {
	case 0:
		return "an unnamed test"
	case 1, 2, 3:
		return strings.Join(tests, ", ")
	}
	return strings.Join(tests[:3], ", ") + fmt.Sprintf(" and %d more tests", len(tests)-3)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// mdCoverage is the job summary's coverage section: a row per adapter,
// then each failing adapter's uncovered shapes with their record commands.
func (r *Run) mdCoverage(b *mdBlocks, links Links) {
	if r.Coverage == nil {
		return
	}
	b.WriteString("#### Call shapes backed by a cassette\n\n| adapter | verdict | coverage | min | uncovered | stale |\n|---|---|---:|---:|---:|---:|\n")
	b.Next()
	for _, a := range r.Coverage.Adapters {
		name := mdText(a.Name)
		if u := links.url(r.ConfigPath, a.Line); u != "" {
			name = "[" + name + "](" + u + ")"
		}
		if a.Status == CoverageUnobserved {
			b.Printf("| %s | not observed | | | | |\n", name)
			b.Next()
			continue
		}
		b.Printf("| %s | %s | %.1f%% (%d of %d) | %.0f%% | %d | %d |\n", name, a.Status, a.Percent, a.CoveredShapes(), len(a.Shapes), a.Min,
			len(a.Shapes)-a.CoveredShapes(), len(a.Stale))
		b.Next()
	}
	b.WriteString("\n")
	b.Next()
	for _, a := range r.Coverage.Adapters {
		if a.CoveredShapes() == len(a.Shapes) {
			continue
		}
		b.Printf("<details%s><summary>%s: %s</summary>\n\n", map[bool]string{true: " open"}[a.Failing()], mdText(a.Name),
			plural(len(a.Shapes)-a.CoveredShapes(), "uncovered call shape"))
		for _, s := range a.Shapes {
			if s.Covered {
				continue
			}
			b.Printf("- <code>%s</code>: %s by %s\n", html.EscapeString(s.Shape), plural(s.Calls, "call"), mdText(callers(s.Tests)))
			if s.Record != "" {
				b.Printf("  <br>record it: <code>%s</code>\n", html.EscapeString(s.Record))
			}
			if s.Note != "" {
				b.Printf("  <br>first %s\n", mdText(s.Note))
			}
		}
		b.WriteString("\n</details>\n\n")
		b.Next()
	}
}

// htmlCoverage is report.html's coverage section.
type htmlCoverage struct {
	Adapters []htmlCoverageAdapter
}

type htmlCoverageAdapter struct {
	Name, Anchor, Status, StatusClass, Percent, Min, Location string
	Uncovered, Covered                                        []CoverageShape
	Stale                                                     []CoverageStale
	Unobserved                                                bool
}

func (r *Run) htmlCoverage() *htmlCoverage {
	if r.Coverage == nil {
		return nil
	}
	out := &htmlCoverage{}
	for _, a := range r.Coverage.Adapters {
		h := htmlCoverageAdapter{Name: a.Name, Anchor: anchor("coverage", a.Name), Status: a.Status, StatusClass: "pass",
			Percent: fmt.Sprintf("%.1f%% (%d of %d)", a.Percent, a.CoveredShapes(), len(a.Shapes)), Min: fmt.Sprintf("%.0f%%", a.Min),
			Location: fmt.Sprintf("%s:%d", cmpOr(r.ConfigPath, "cassette.yaml"), a.Line), Stale: a.Stale, Unobserved: a.Status == CoverageUnobserved}
		if a.Failing() {
			h.StatusClass = "fail"
		}
		for _, s := range a.Shapes {
			if s.Covered {
				h.Covered = append(h.Covered, s)
			} else {
				h.Uncovered = append(h.Uncovered, s)
			}
		}
		out.Adapters = append(out.Adapters, h)
	}
	return out
}
