package cassettes

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// A cassette file's name is printed (locations, next steps, reports, forge
// texts), carried by git and file systems and, for a go-vcr file, is its
// scenario. In a project it therefore follows the name rule (ValidName)
// whatever the file's `scenario:` says: below the cassettes directory its
// path without the extension (adapter folder and scenario,
// `gh/TestLogin/ok`), elsewhere its base name without the extension. A
// file that breaks it is refused where it is loaded, with the `git mv`
// that renames it as the next step; outside a project (a proxy replaying
// a go-vcr directory, an import reading one) names are taken as they come.
// And one adapter has one cassette per scenario: two files that name the
// same scenario of an adapter (a `scenario:` copied, `x.yaml` beside
// `x.yml`) would run one case twice, so the second is refused, naming
// both.

// misnamed returns the name a cassette file at path carries (see above)
// and, when that name breaks the rule, the path to rename it to: each part
// that breaks it mapped as WildName maps it (the mapping `cassette import`
// renames with), the directories above and the extension kept. renamed is
// "" for a name that keeps the rule.
func misnamed(path, root string) (name, renamed string) {
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	name, prefix := filepath.Base(stem), filepath.Dir(stem)+string(filepath.Separator)
	if rel := below(root, stem); rel != "" {
		name = filepath.ToSlash(rel)
		prefix = strings.TrimSuffix(stem, rel)
		if prefix == stem || !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix = root + string(filepath.Separator)
		}
	}
	if ValidName(name) {
		return name, ""
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if !validPart(p) {
			parts[i] = WildName(p)
		}
		if parts[i] == "" {
			parts[i] = "renamed"
		}
	}
	if prefix == "."+string(filepath.Separator) && !strings.HasPrefix(path, prefix) {
		prefix = ""
	}
	return name, prefix + filepath.FromSlash(strings.Join(parts, "/")) + ext
}

// below returns p relative to root when p lies below it, else "".
func below(root, p string) string {
	if root == "" {
		return ""
	}
	// Both absolute or both relative: to the same directory, as
	// filepath.Abs would make them, without a Getwd for each file loaded.
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(root) != filepath.IsAbs(p) {
		ar, err1 := filepath.Abs(root)
		ap, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return ""
		}
		rel, err = filepath.Rel(ar, ap)
	}
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ""
	}
	return rel
}

// fileNameProblem is the problem of a cassette file whose name breaks the
// rule in a project, and the command that renames it; nil and "" when the
// name keeps it or no project is loaded.
func (o LoadOptions) fileNameProblem(path string) (*outcome.Problem, string) {
	if o.Config == nil {
		return nil, ""
	}
	name, renamed := misnamed(path, o.Config.CassetteDir())
	if renamed == "" {
		return nil, ""
	}
	return &outcome.Problem{File: path, Line: 1,
		Message:    fmt.Sprintf("the file name `%s` is not a valid name: git, file systems and shells cannot all carry it", outcome.Printable(name)),
		Expected:   "a file name of " + ScenarioRule,
		Suggestion: fmt.Sprintf("rename the file %s (`cassette import govcr` names files so)", outcome.Printable(renamed)),
	}, outcome.Command("git", "mv", "--", path, renamed)
}

// withFileName adds the problem of a misnamed file to what loading it
// gave: the load's error, or a new one for a file that loaded. Its next
// step is the rename (a credential found is reported first all the same).
func (o LoadOptions) withFileName(path string, c *Cassette, err error) (*Cassette, error) {
	p, mv := o.fileNameProblem(path)
	if p == nil {
		return c, err
	}
	if c != nil && !c.Plain {
		p.Line = max(1, c.Line("scenario")) // the name the file should carry
	}
	e, ok := err.(*outcome.Error)
	if err != nil && !ok {
		return c, err
	}
	if e == nil {
		return nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: "cassette " + outcome.Printable(path) + " has a file name that is not valid", Problems: []outcome.Problem{*p}, NextStep: mv}
	}
	e.Problems = append([]outcome.Problem{*p}, e.Problems...)
	if e.Reason == outcome.ECassetteInvalid {
		e.NextStep = mv
	}
	return nil, e
}

// duplicateProblems refuses, in a project, every cassette of list after the
// first that names the same scenario of the same adapter. It returns the
// cassettes kept, the problems (each naming both files) and a command that
// shows how the first pair differs.
func duplicateProblems(list []*Cassette, opts LoadOptions) (kept []*Cassette, probs []outcome.Problem, next string) {
	if opts.Config == nil {
		return list, nil, ""
	}
	first := map[string]*Cassette{}
	for _, c := range list {
		f, dup := first[c.ID()]
		if !dup {
			first[c.ID()] = c
			kept = append(kept, c)
			continue
		}
		if a, b := absPath(f.Path), absPath(c.Path); a == b {
			continue // the same file, named twice on the command line
		}
		p := outcome.Problem{File: c.Path, Line: 1,
			Message: fmt.Sprintf("scenario `%s` of adapter `%s` is also the scenario of %s: one case would run twice",
				outcome.Printable(c.Scenario), outcome.Printable(c.Adapter), outcome.Printable(f.Path)),
			Expected:   "one cassette per scenario of an adapter",
			Suggestion: "keep one of the two files (or give this one another scenario, and its file that name)"}
		if !c.Plain {
			p.Field, p.Line = "scenario", max(1, c.Line("scenario"))
		}
		probs = append(probs, p)
		if next == "" {
			next = outcome.Command("diff", "-u", "--", f.Path, c.Path)
		}
	}
	return kept, probs, next
}

// absPath is p made absolute (p as it is when it cannot be).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
