// Package scaffold writes what `cassette init` starts a project with: a
// commented cassette.yaml with one example adapter, the cassettes/
// directory, and .cassette/ (the reports, the fakes' logs, the built
// fakes) in the .gitignore beside them.
//
// Decisions:
//
//   - An existing config is never overwritten, nor a second project made
//     below one cassette finds above (as git finds .git), unless Force.
//   - The config's first line names its JSON Schema, for editors; the
//     address is the caller's (package gendocs publishes the schemas).
package scaffold

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
)

const body = `# cassette.yaml: the adapters whose fakes cassette keeps honest.
# Reference: docs/reference/generated/config.md. Check it with: cassette validate
version: 1
adapters:
  # One adapter per external service. Rename "example" and point it at yours.
  example:
    kind: http                       # http | cli
    real:
      base_url: https://api.example.com
      credentials: [EXAMPLE_TOKEN]   # env var NAMES; absent -> refresh skips this adapter
      headers: {Authorization: "Bearer ${EXAMPLE_TOKEN}"}
    fake:
      command: [go, run, ./fakes/example]   # started by verify; listens on $PORT
      base_url: http://127.0.0.1:${PORT}    # the default for a fake verify starts
      ready: /healthz
    normalizers: [headers.volatile, timestamps.ISO8601]
    owners: ["@your-team"]
    scenarios:                       # what 'cassette record --adapter example' records
      - {name: get-root, method: GET, path: /}
normalizers: {}                      # project-defined: {name: {regex: ..., replace: ...}}
refresh:
  schedule: "@weekly"
  forge: {kind: git, remote: origin}
  escalate_after: 3
quarantine: {}
`

// Template is the cassette.yaml init writes, its first line naming the
// schema at schema; with learn, the example adapter starts with no
// normalizers, to be learned from the real side.
func Template(schema string, learn bool) string {
	t := "# yaml-language-server: $schema=" + schema + "\n" + body
	if learn {
		t = strings.Replace(t, "    normalizers: [headers.volatile, timestamps.ISO8601]\n",
			"    normalizers: []                  # filled from real recordings by: cassette learn --adapter example --apply\n", 1)
	}
	return t
}

// Init is one `cassette init`.
type Init struct {
	// Path is the config to write; Above is the config cassette would use
	// from its directory (Path itself when there is none above).
	Path, Above string
	// Schema is the address of cassette.yaml's JSON Schema.
	Schema string
	Force  bool
	// Learn starts without normalizers (Template).
	Learn bool
	// Out gets what was written and the next steps.
	Out io.Writer
}

// Run writes the project's files.
func (in *Init) Run() error {
	path := in.Path
	if _, err := os.Stat(path); err == nil && !in.Force {
		return outcome.Errorf(outcome.EUsage, nextstep.Command(path, "cassette", "validate"),
			"%s already exists; not overwriting it (cassette init --force starts over)", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot check " + path, Err: err, NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
	}
	if in.Above != "" && in.Above != path && !in.Force {
		return outcome.Errorf(outcome.EUsage, nextstep.Command(in.Above, "cassette", "validate"),
			"%s is this directory's project (cassette finds the nearest cassette.yaml above, as git finds .git); not writing a second one here (cassette init --force does)", in.Above)
	}
	if err := cassettes.WriteFileAtomic(path, []byte(Template(in.Schema, in.Learn)), 0o644); err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(path), "cassettes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot create " + dir, Err: err, NextStep: outcome.Command("mkdir", "-p", dir)}
	}
	fmt.Fprintf(in.Out, "wrote %s and %s/\n", path, dir)
	ignore := filepath.Join(filepath.Dir(path), ".gitignore")
	if added, err := IgnoreWorkDir(ignore); err != nil {
		return err
	} else if added {
		fmt.Fprintf(in.Out, "added .cassette/ (reports, fake logs, built fakes) to %s\n", ignore)
	}
	fmt.Fprintf(in.Out, "edit %s: rename adapter example, point its real.base_url at your service and its fake at your fake; then record a first cassette with %s\n",
		path, nextstep.Command(path, "cassette", "record", "--adapter", "example", "--scenario", "get-root"))
	if in.Learn {
		fmt.Fprintf(in.Out, "then learn its normalizers from the real side before the first verify: %s, then %s\n",
			nextstep.Command(path, "cassette", "learn", "--adapter", "example", "--apply"), nextstep.Command(path, "cassette", "verify"))
	}
	fmt.Fprintf(in.Out, "next: %s\n", nextstep.Command(path, "cassette", "validate"))
	return nil
}

// IgnoreWorkDir adds .cassette/ to the .gitignore at path unless a line
// already ignores it; it says whether it added the line.
func IgnoreWorkDir(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, &outcome.Error{Reason: outcome.EIO, Message: "cannot read " + path, Err: err, NextStep: outcome.Command("ls", "-l", path)}
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case ".cassette", ".cassette/", "/.cassette", "/.cassette/":
			return false, nil
		}
	}
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		data = append(data, '\n')
	}
	data = append(data, ".cassette/\n"...)
	if err := cassettes.WriteFileAtomic(path, data, 0o644); err != nil {
		return false, err
	}
	return true, nil
}
