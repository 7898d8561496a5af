package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/workspace"
)

func newRecordCmd(stdio *IO, g *globals) *cobra.Command {
	o := &recording.RecordJob{}
	cmd := &cobra.Command{
		Use:   "record --adapter NAME [--scenario NAME] [-- COMMAND [ARGS...]]",
		Short: "Record real interactions into cassettes, with secrets removed before anything is written",
		Long: `record talks to the real side of an adapter with live credentials and writes
what it saw to cassettes/<adapter>/<scenario>.yaml.

With a command after --, record runs it with an intercepting HTTPS proxy and
its CA in the environment, and records its stdin, stdout, stderr, exit code
and every HTTP(S) call it made (a cli adapter), or just those calls (an http
adapter). Without a command, it sends the scenarios an http adapter declares
in cassette.yaml to real.base_url, with real.headers (${VAR} expanded).

Credential headers become [REDACTED], the values of the variables named in
real.credentials are scrubbed from URLs, bodies and output, and a scan for
known key formats refuses to write a cassette that still holds one.

Ctrl-C (SIGINT) or SIGTERM is passed on to the command (killed if it has
not ended 5s later, or at a second one); an interrupted run is not a
recording: nothing is written, exit 3 (E_INTERRUPTED). If record itself is
killed, the command dies with it. Another process recording into the same
cassette (or importing into its adapter) makes record stop at once: exit 2
(E_LOCKED), naming that process.

The command's stdout goes to stdout and its stderr to stderr, once it has
exited and redacted like the cassette; record's own messages go to stderr.
A run during which the real service failed (refused, DNS, TLS, reset,
timeout, 408/429/5xx) is not a recording: nothing is written, exit 3.`,
		Example: `  cassette record --adapter gh --scenario pr-list -- gh pr list --json number
  cassette record --adapter github                  # every scenario in cassette.yaml
  cassette record --adapter github --scenario list-pulls`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") {
				o.AttemptTimeout = o.Timeout
			} else {
				o.Timeout = 10 * time.Minute
			}
			return recordRun(cmd.Context(), stdio, g, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Adapter, "adapter", "", "adapter declared in cassette.yaml (required)")
	f.StringVar(&o.Scenario, "scenario", "", "scenario name (required with a command; selects one declared scenario otherwise)")
	f.StringVar(&o.BaseURL, "base-url", "", "override the adapter's real.base_url")
	f.StringVar(&o.UpstreamCA, "upstream-ca", "", "PEM file of the CA that signed the real service's certificate (replaces real.ca_file)")
	f.DurationVar(&o.Timeout, "timeout", 0, "time limit of a recorded command (10m when not given); with declared scenarios, of each live request (30s when not given)")
	f.BoolVar(&o.Quiet, "quiet", false, "do not echo the command's output")
	f.BoolVar(&o.AllowProjectRepo, "allow-project-repo", false, "record git or gh in a real.dir inside this project's own repository (refused by default: it would record the project's history)")
	f.IntSliceVar(&o.AllowStatus, "allow-status", nil, "a failing status (401, 403, 408, 429, 5xx) the command's calls answer on purpose: record it instead of refusing the recording (repeatable)")
	f.BoolVar(&o.Mutating, "mutating", false, "mark the cassette as changing the real service: refresh does not re-run it")
	_ = cmd.MarkFlagRequired("adapter")
	return cmd
}

func recordRun(ctx context.Context, stdio *IO, g *globals, o *recording.RecordJob, command []string) error {
	ver, sha := buildInfo()
	o.Config, o.Recorder, o.In, o.Out, o.Err = g.config, cassettes.Recorder{Version: ver, SHA: sha}, stdio.In, stdio.Out, stdio.Err
	o.Load = func() (*workspace.Project, error) {
		p, err := loadProject(g)
		if err != nil {
			return nil, err
		}
		return p.Project, nil
	}
	return o.Run(ctx, command)
}
