package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/verdict"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr,omitempty"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr,omitempty"`
	Skipped   *junitMessage `xml:"skipped"`
	Error     *junitMessage `xml:"error"`
	Failure   *junitMessage `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// junit renders junit.xml: one testsuite per adapter (in report order), one
// testcase per cassette; a run-level error is one more suite, named after the
// tool, holding one testcase named after the command (the case every report
// file counts for it). A drift and an error are both <failure> (specs/002
// §2: Fail/Error map to <failure>; the type attribute keeps the reason
// code); a skipped or quarantined case is <skipped>. Golden mode omits times
// and timestamps.
func (r *Run) junit(opts Options) ([]byte, error) {
	root := junitSuites{Name: r.toolName() + " " + r.command()}
	byAdapter := map[string]int{}
	var suiteTime []time.Duration
	for _, c := range r.reportCases() {
		i, ok := byAdapter[c.Adapter]
		if !ok {
			i = len(root.Suites)
			byAdapter[c.Adapter] = i
			root.Suites = append(root.Suites, junitSuite{Name: c.Adapter})
			suiteTime = append(suiteTime, 0)
		}
		s := &root.Suites[i]
		tc := junitCase{Name: c.Scenario, Classname: c.Adapter}
		if !opts.Golden {
			tc.Time = seconds(c.Duration)
		}
		detail := r.caseDetail(c)
		switch {
		case c.Quarantine != nil && c.Quarantined(r.now()):
			q := c.Quarantine
			tc.Skipped = &junitMessage{Message: fmt.Sprintf("quarantined (%s, owner %s, expires %s, %s): outcome %s", q.Category, q.Owner, q.Expires.Format(time.DateOnly), q.Issue, c.Status)}
			tc.SystemOut = detail
			s.Skipped++
		case c.Status == verdict.StatusSkipped:
			tc.Skipped = &junitMessage{Message: c.Message}
			s.Skipped++
		case c.Failed():
			tc.Failure = &junitMessage{Type: string(c.ReasonAt(r.now())), Message: r.digest(c).FirstFailingAssertion, Text: detail}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
		suiteTime[i] += c.Duration
	}
	for i := range root.Suites {
		s := &root.Suites[i]
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		if !opts.Golden {
			var d time.Duration
			if i < len(suiteTime) {
				d = suiteTime[i]
			}
			s.Time = seconds(d)
			if !r.Started.IsZero() {
				s.Timestamp = r.Started.UTC().Format("2006-01-02T15:04:05")
			}
		}
	}
	if !opts.Golden {
		root.Time = seconds(r.Duration())
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// caseDetail is the text of a failure: each drift with its location and diff,
// then the case's next step when it has one of its own, and the replay command.
func (r *Run) caseDetail(c *verdict.Case) string {
	var b strings.Builder
	if c.Message != "" {
		b.WriteString(c.Message + "\n")
	}
	for _, d := range c.Drifts {
		loc := c.CassettePath
		if d.Line > 0 {
			loc += fmt.Sprintf(":%d", d.Line)
		}
		fmt.Fprintf(&b, "%s: %s\n", loc, driftText(d))
		if d.Diff != "" {
			b.WriteString(d.Diff)
			if !strings.HasSuffix(d.Diff, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	if c.Failed() {
		if c.NextStep != "" && c.NextStep != r.caseReplay(c) {
			b.WriteString("Next: " + c.NextStep + "\n") // what mends it (coverage: the record command)
		}
		b.WriteString("Replay: " + r.caseReplay(c) + "\n")
	}
	return b.String()
}
