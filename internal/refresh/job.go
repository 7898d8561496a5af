package refresh

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Job is one `cassette refresh` on a loaded project: the flags as fields,
// the options of its cycles built from them (Options), the zone its
// schedule is read in (Location) and one cycle run to its report (Run).
type Job struct {
	Project  *workspace.Project
	Adapters []string
	DryRun   bool
	// DryRunUnsafe is --rerecord-unsafe.
	DryRunUnsafe bool
	// Remote is --remote ("": refresh.forge.remote, then origin); Base is
	// --base ("": refresh.base, then the current branch).
	Remote, Base string
	// UpstreamCA replaces real.ca_file; Timeout bounds each live request
	// and CLI run (0: the recorder's defaults).
	UpstreamCA string
	Timeout    time.Duration
	// AllowProjectRepo is --allow-project-repo: re-record git or gh in a
	// real.dir inside the project's own repository.
	AllowProjectRepo bool
	// Recorder names this build in the cassettes it writes.
	Recorder cassettes.Recorder
	// Log gets a cycle's steps, Warn the recorder's warnings.
	Log, Warn io.Writer
	// LookupEnv reads the credentials and the forge's token (nil:
	// os.LookupEnv).
	LookupEnv func(string) (string, bool)
}

func (j *Job) lookup() func(string) (string, bool) {
	if j.LookupEnv != nil {
		return j.LookupEnv
	}
	return os.LookupEnv
}

// Location is the zone refresh.timezone names, in which the schedule is
// read and a cycle's date is written (UTC when unset).
func (j *Job) Location() (*time.Location, error) {
	cfg := j.Project.Config
	tz := cfg.Refresh.TimeZone
	if tz == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: fmt.Sprintf("refresh.timezone %q: %v (set an IANA zone like UTC or Europe/Paris)", tz, err),
			Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("refresh.timezone"), Field: "refresh.timezone", Message: "not a time zone", Expected: "an IANA zone like UTC"}},
			NextStep: nextstep.Command(cfg.Path, "cassette", "validate")}
	}
	return loc, nil
}

// Options builds a cycle's options: git on the project, and the forge of
// refresh.forge (github needs its token, except in a dry run; git needs
// nothing more). Git is scrubbed of every form of every declared
// credential that is set, and of the forge's token.
func (j *Job) Options() (Options, error) {
	p := j.Project
	f := p.Config.Refresh.Forge
	remote := cmp.Or(j.Remote, f.Remote, "origin")
	g := &Git{Dir: p.Config.Dir, Secrets: redact.New(p.Redact, p.Credentials(j.lookup())).Values()}
	opts := ProjectOptions(p)
	opts.Adapters, opts.Git, opts.Remote, opts.Base, opts.DryRun, opts.DryRunUnsafe = j.Adapters, g, remote, j.Base, j.DryRun, j.DryRunUnsafe
	opts.Log = j.Log
	opts.Recorder = recording.Live{Config: p.Config, Recorder: j.Recorder, UpstreamCA: j.UpstreamCA, Warn: j.Warn,
		AttemptTimeout: j.Timeout, CLITimeout: j.Timeout, AllowProjectRepo: j.AllowProjectRepo}
	if f.Kind != "github" {
		opts.Forge = &GitForge{Git: g, Remote: remote, Base: cmp.Or(j.Base, p.Config.Refresh.Base)}
		return opts, nil
	}
	env := p.Config.ForgeTokenEnv()
	tok, _ := j.lookup()(env)
	if tok == "" && j.DryRun {
		opts.Forge = nil // a dry run needs no API
		return opts, nil
	}
	gh, err := NewGitHub(f.Repo, tok, f.APIURL, nil)
	if err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.EMissingConfig {
			ce.Message = fmt.Sprintf("the github forge needs a token in $%s (refresh.forge.token_env) that may push branches and open PRs and issues; export it, then run refresh again", env)
			ce.NextStep = nextstep.Command(p.Config.Path, "cassette", "refresh", "--once")
		}
		return opts, err
	}
	g.Secrets = withSecret(g.Secrets, env, tok)
	g.Env = gh.PushEnv()
	opts.Forge = gh
	return opts, nil
}

// Run runs one cycle at now, prints what it did on human, writes the PR
// and issue texts under proposals, and returns the cycle's run for the
// reports, with tool as its tool.
func (j *Job) Run(ctx context.Context, now time.Time, human io.Writer, proposals string, tool verdict.Tool) (*verdict.Run, error) {
	opts, err := j.Options()
	if err != nil {
		return nil, err
	}
	res := Cycle(ctx, now, opts)
	res.Print(human)
	if err := res.WriteProposals(proposals); err != nil {
		return nil, err
	}
	return res.Report(j.Project.Config, tool, proposals), nil
}

// LastRun is when the last cycle ran, from the state on the remote: a
// schedule's first cycle is the one that was due since then.
func (o Options) LastRun(ctx context.Context) (time.Time, error) {
	st, err := (&StateStore{Git: o.Git, Remote: o.Remote}).Load(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return st.LastRun, nil
}

// withSecret is m and k: v, in a new map.
func withSecret(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}
