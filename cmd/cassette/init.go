package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/gendocs"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// initTemplate is the cassette.yaml that `cassette init` writes: valid as
// written, every section present, comments saying what to change.
const initTemplate = `# yaml-language-server: $schema=` + gendocs.SchemaBase + `cassette.yaml.schema.json
# cassette.yaml: the adapters whose fakes cassette keeps honest.
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

func newInitCmd(stdio *IO, g *globals) *cobra.Command {
	var force, learnFirst bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold cassette.yaml and the cassettes/ directory",
		Example: `  cassette init
  cassette init --learn     # no normalizers guessed: learn them from the first recordings
  cassette init --config ci/cassette.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return initRun(stdio, g.config, force, learnFirst)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing config file")
	cmd.Flags().BoolVar(&learnFirst, "learn", false, "start with no normalizers, and say how to learn them from the real side (record, learn, verify)")
	return cmd
}

// learnTemplate is initTemplate for `cassette init --learn`: no
// normalizer guessed; cassette learn fills the list from recordings.
var learnTemplate = strings.Replace(initTemplate, "    normalizers: [headers.volatile, timestamps.ISO8601]\n",
	"    normalizers: []                  # filled from real recordings by: cassette learn --adapter example --apply\n", 1)

func initRun(stdio *IO, path string, force, learnFirst bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return outcome.Errorf(outcome.EUsage, commandWithConfig(path, "cassette", "validate"),
			"%s already exists; not overwriting it (cassette init --force starts over)", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot check " + path, Err: err, NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
	}
	tmpl := initTemplate
	if learnFirst {
		tmpl = learnTemplate
	}
	if above := findConfig(path); above != path && !force {
		// Every command run here already finds that one: a second config
		// below it would split the project (and pytest would load both).
		return outcome.Errorf(outcome.EUsage, commandWithConfig(above, "cassette", "validate"),
			"%s is this directory's project (cassette finds the nearest cassette.yaml above, as git finds .git); not writing a second one here (cassette init --force does)", above)
	}
	if err := cassettes.WriteFileAtomic(path, []byte(tmpl), 0o644); err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(path), "cassettes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot create " + dir, Err: err, NextStep: outcome.Command("mkdir", "-p", dir)}
	}
	fmt.Fprintf(stdio.Out, "wrote %s and %s/\n", path, dir)
	if added, err := ignoreWorkDir(filepath.Join(filepath.Dir(path), ".gitignore")); err != nil {
		return err
	} else if added {
		fmt.Fprintf(stdio.Out, "added .cassette/ (reports, fake logs, built fakes) to %s\n", filepath.Join(filepath.Dir(path), ".gitignore"))
	}
	fmt.Fprintf(stdio.Out, "edit %s: rename adapter example, point its real.base_url at your service and its fake at your fake; then record a first cassette with %s\n",
		path, commandWithConfig(path, "cassette", "record", "--adapter", "example", "--scenario", "get-root"))
	if learnFirst {
		fmt.Fprintf(stdio.Out, "then learn its normalizers from the real side before the first verify: %s, then %s\n",
			commandWithConfig(path, "cassette", "learn", "--adapter", "example", "--apply"), commandWithConfig(path, "cassette", "verify"))
	}
	fmt.Fprintf(stdio.Out, "next: %s\n", commandWithConfig(path, "cassette", "validate"))
	return nil
}

// ignoreWorkDir adds .cassette/ (what verify and record write: reports,
// fake logs, built fakes) to the .gitignore at path, creating it, unless a
// line already ignores it. It reports whether it added the line.
func ignoreWorkDir(path string) (bool, error) {
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
