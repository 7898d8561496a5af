package speccheck

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// specRegistry is the reason-code registry of specs/002 §5, with the exit
// code each code's table puts it under (§5.1 exit 2, §5.2 exit 3, §5.3
// exit 1).
var specRegistry = map[string]int{
	"E_CFG_PARSE": 2, "E_TRACE_NOT_FOUND": 2, "E_MISSING_CONFIG": 2, "E_BASELINE_INVALID": 2,
	"E_POLICY_PARSE": 2, "E_REPLAY_MISSING_DEPENDENCY": 2,
	"E_JUDGE_UNAVAILABLE": 3, "E_RATE_LIMIT": 3, "E_PROVIDER_5XX": 3, "E_TIMEOUT": 3,
	"E_TEST_FAILED": 1,
}

// Registry is what a report may say about reasons: the reason codes and
// the exit code each maps to (specs/002 §5 plus "a documented extension",
// §5: the codes the Exit codes table of docs/reference/exit-codes.md lists),
// and the declared root_cause_class taxonomy of failure digests (specs/000;
// the same page, Root cause classes).
type Registry struct {
	Exit       map[string]int
	RootCauses []string
}

var (
	backticked = regexp.MustCompile("`([A-Za-z0-9_]+)`")
	reasonCode = regexp.MustCompile(`^E_[A-Z0-9_]+$`)
)

// ReadRegistry reads the documented registry from the page that documents
// it (docs/reference/exit-codes.md): the rows of the table under
// "## Exit codes" (exit code in the first cell, reason codes in backticks
// in the last), and the root_cause_class list. The codes of specs/002 §5
// are registered whatever the page says; a page that moves one to another
// exit code is an error.
func ReadRegistry(readme string) (*Registry, error) {
	data, err := os.ReadFile(readme)
	if err != nil {
		return nil, err
	}
	text := "\n" + string(data)
	reg := &Registry{Exit: map[string]int{}}
	for k, v := range specRegistry {
		reg.Exit[k] = v
	}
	_, section, ok := strings.Cut(text, "\n## Exit codes\n")
	if !ok {
		return nil, fmt.Errorf("%s has no \"## Exit codes\" section", readme)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, ln := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(ln), "|"), "|")
		if len(cells) < 3 {
			continue
		}
		exit, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header, its rule, the table of files
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			code := m[1]
			if !reasonCode.MatchString(code) {
				continue
			}
			if want, spec := specRegistry[code]; spec && want != exit {
				return nil, fmt.Errorf("%s documents %s under exit %d; specs/002 §5 registers it under %d", readme, code, exit, want)
			}
			reg.Exit[code] = exit
		}
	}
	_, digest, ok := strings.Cut(text, "`root_cause_class` — one of")
	if !ok {
		return nil, fmt.Errorf("%s does not declare the root_cause_class taxonomy (\"`root_cause_class` — one of …\")", readme)
	}
	digest, _, _ = strings.Cut(digest, "(")
	for _, m := range backticked.FindAllStringSubmatch(digest, -1) {
		reg.RootCauses = append(reg.RootCauses, m[1])
	}
	if len(reg.RootCauses) == 0 {
		return nil, fmt.Errorf("%s declares no root_cause_class", readme)
	}
	return reg, nil
}

// registered checks one reason code a file carries: documented, and (when
// exit ≥ 0) mapped to that exit code.
func (c *checker) registered(spec, file, where, code string, exit int) {
	if code == "" {
		return
	}
	want, ok := c.reg.Exit[code]
	switch {
	case !ok:
		c.bad(spec, file, "%s: reason code %s is neither registered (specs/002 §5) nor documented in docs/reference/exit-codes.md", where, code)
	case exit >= 0 && want != exit:
		c.bad("002 §4", file, "%s: reason code %s maps to exit %d, the file says %d", where, code, want, exit)
	}
}
