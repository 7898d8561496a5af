package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/learn"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/verify"
)

type learnOptions struct {
	adapter             string
	scenarios           []string
	repeat              int
	interval            time.Duration
	unsafe              bool
	noOld               bool
	noFake              bool
	apply               bool
	timeout             time.Duration
	baseURL, upstreamCA string
	allowRepo           bool // --allow-project-repo, as record has it
}

func newLearnCmd(stdio *IO, g *globals) *cobra.Command {
	o := &learnOptions{}
	cmd := &cobra.Command{
		Use:   "learn --adapter NAME [--scenario S]... [--repeat N] [--apply]",
		Short: "Record scenarios several times and propose the normalizers that hide what varies",
		Long: `learn records each scenario of an adapter again --repeat times against the
real side (from the cassette's own input, with the live retry policy), compares
the recordings, and the committed cassette (made by another process of the real
side, at another time), after the adapter's normalizers, and proposes the
smallest set of normalizers under which they are equal: a built-in where one
fits, else a project normalizer aimed at the places that vary (numbered where a
value recurs, so that identity is kept). A value that never varies is never
normalized. It prints the change as a unified diff of cassette.yaml (comments
and layout kept) and, per normalizer, the places and sample values it covers
(redacted). A place no normalizer can express (a list whose order changes, a
value that is sometimes absent) is listed with what to do instead.

Only calls that are safe to repeat are made: GET, HEAD and OPTIONS requests and
CLI scenarios not marked mutating: true; --rerecord-unsafe repeats the others.
The fake runs on each input too: see --without-fake.

--apply writes cassette.yaml (atomically, under the project's locks) and
records each scenario once more, saved with the new normalizers.

Exit 0: learned (or nothing varies); 1: a place varies in a way no normalizer
expresses; 2: configuration error; 3: the real side failed.`,
		Example: `  cassette learn --adapter prometheus
  cassette learn --adapter prometheus --scenario targets --repeat 5 --interval 2s
  cassette learn --adapter git --apply && cassette verify`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return learnRun(cmd.Context(), stdio, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adapter, "adapter", "", "the adapter whose scenarios to learn from")
	f.StringArrayVar(&o.scenarios, "scenario", nil, "a scenario to learn from (repeatable; default: all of the adapter's)")
	f.IntVar(&o.repeat, "repeat", 3, "recordings of each scenario (2 at least)")
	f.DurationVar(&o.interval, "interval", 0, "wait between two recordings of a scenario (e.g. 2s: a value that changes each second shows)")
	f.BoolVar(&o.unsafe, "rerecord-unsafe", false, "also repeat calls that may change the real service (other methods than GET, HEAD, OPTIONS)")
	f.BoolVar(&o.noOld, "without-committed", false, "compare only the new recordings, not the committed cassette with them")
	f.BoolVar(&o.noFake, "without-fake", false, "learn from reality alone (by default the fake runs on each input, and a value where only it differs is learned if both sides are of one volatile class: UUIDs, timestamps, SHAs, msg_… ids; else it is listed as the fake's drift)")
	f.StringVar(&o.baseURL, "base-url", "", "override the adapter's real.base_url")
	f.BoolVar(&o.apply, "apply", false, "write cassette.yaml and record the scenarios once more with the learned normalizers")
	f.DurationVar(&o.timeout, "timeout", 0, "bound on one live call (0: the recorder's default)")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA the real side's certificate is checked against")
	f.BoolVar(&o.allowRepo, "allow-project-repo", false, "re-record git or gh in a real.dir inside this project's own repository (refused by default: it would record the project's history)")
	_ = cmd.MarkFlagRequired("adapter")
	return cmd
}

func learnRun(ctx context.Context, stdio *IO, g *globals, o *learnOptions) error {
	if o.repeat < 2 {
		return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--repeat %d: learning compares recordings, so it needs 2 at least", o.repeat),
			NextStep: commandWithConfig(g.config, "cassette", "learn", "--adapter", o.adapter, "--repeat", "3")}
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ver, sha := buildInfo()
	live := recording.Live{Config: p.cfg, Recorder: cassettes.Recorder{Version: ver, SHA: sha}, UpstreamCA: o.upstreamCA, Warn: stdio.Err,
		AttemptTimeout: o.timeout, CLITimeout: o.timeout, AllowProjectRepo: o.allowRepo, HoldClients: true}
	s := learn.Session{Project: p.Project, Adapter: o.adapter, Scenarios: o.scenarios, Repeat: o.repeat, Interval: o.interval, Unsafe: o.unsafe, WithoutCommitted: o.noOld,
		Credentials: p.credentials(), Log: stdio.Err,
		Record: func(ctx context.Context, old *cassettes.Cassette) (*cassettes.Cassette, func(), error) {
			rec, err := live.Rerecord(ctx, o.adapter, p.cfg.Adapters[o.adapter], old)
			return rec.Cassette, rec.Release, err
		}}
	if a := p.cfg.Adapters[o.adapter]; a != nil && o.baseURL != "" {
		a.Real.BaseURL = o.baseURL // what the re-recordings reach
	}
	if !o.noFake {
		s.Fake = verify.ProjectAnswers(p.Project, filepath.Join(p.cfg.Dir, ".cassette", "reports", "learn", "fakes"))
	}
	out, err := s.Learn(ctx)
	if err != nil {
		return err
	}
	out.Write(stdio.Out, o.adapter)
	if o.apply {
		if err := s.Apply(ctx, out); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdio.Out, "next: %s\n", s.NextStep(out, o.apply))
	if len(out.Result.Left) > 0 {
		return exitError(1)
	}
	return nil
}
