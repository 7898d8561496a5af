package harness

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Plan loads the cassettes of paths (the project's cassette directory when
// none) with the project's load options and plans the selected cases as
// verify plans them, with the verify options of the project (its config,
// normalizers and the declared credentials set, read through lookup; nil
// is os.LookupEnv): what `cassette cases` lists and `cassette check`
// judges, so that a harness's verdict is verify's. Options are zero when
// the cassettes did not load.
func Plan(p *workspace.Project, paths []string, sel verify.Selection, lookup func(string) (string, bool)) ([]verify.Case, verify.Options, error) {
	opts := verify.ProjectOptions(p, lookup)
	if len(paths) == 0 {
		paths = []string{p.Config.CassetteDir()}
	}
	list, err := cassettes.LoadTree(paths, p.LoadOptions(opts.Credentials))
	if err != nil {
		return nil, verify.Options{}, err
	}
	cases, err := verify.Plan(p.Config, list, sel)
	return cases, opts, err
}

// List describes the planned cases for a harness, in their order. opts is
// the verify options of the project (its config, normalizers and
// credentials); now decides whether a quarantine entry has expired.
func List(cases []verify.Case, opts verify.Options, now time.Time) (*Listing, error) {
	dir, err := filepath.Abs(opts.Config.Dir)
	if err != nil {
		return nil, err
	}
	l := &Listing{Protocol: Version, Config: opts.Config.Path, Dir: dir, Cases: make([]Case, 0, len(cases))}
	abs := absDirs{}
	for _, c := range cases {
		hc, err := describe(c, opts, now, abs)
		if err != nil {
			return nil, err
		}
		l.Cases = append(l.Cases, hc)
	}
	return l, nil
}

// absDirs are the directories List made absolute: filepath.Abs reads the
// working directory (two stats) each time, and every case of an adapter
// has the same fake directory (a twentieth of listing 10,000 cases).
type absDirs map[string]string

func (m absDirs) abs(p string) (string, error) {
	if a, ok := m[p]; ok {
		return a, nil
	}
	a, err := filepath.Abs(p)
	if err == nil {
		m[p] = a
	}
	return a, err
}

// describe is one case as a harness drives it.
func describe(c verify.Case, opts verify.Options, now time.Time, dirs absDirs) (Case, error) {
	k := c.Cassette
	hc := Case{ID: k.ID(), Adapter: k.Adapter, Scenario: k.Scenario, Kind: string(k.Kind),
		File: verify.ShardKey(opts.Config.Dir, k.Path), Line: max(1, k.Line("scenario"))}
	if q, ok := opts.Config.Quarantine[hc.ID]; ok {
		hc.Quarantine = &Quarantine{Category: q.Category, Owner: q.Owner, Reason: q.Reason,
			Expires: q.Expires.String(), Expired: q.Expired(now), Issue: q.Bead}
	}
	if k.Kind == cfgschema.KindCLI {
		in := cassettes.Input{}
		if k.Input != nil {
			in = *k.Input
		}
		fakeDir := ""
		if c.Adapter != nil {
			fakeDir = c.Adapter.Fake.Dir
		}
		abs, err := dirs.abs(cfgschema.ResolvePath(opts.Config.Dir, fakeDir))
		if err != nil {
			return hc, err
		}
		// The recorded environment names the harness hands the fake with
		// their values: never a live credential (a fake's environment is
		// cfgschema.Config.FakeEnviron's, whatever door runs it).
		env := cfgschema.WithoutVars(in.Env, opts.Config.SecretVars())
		hc.CLI = &CLIInput{Command: in.Command, Args: nonNil(in.Args), Env: nonNil(env), Dir: abs}
		hc.CLI.Stdin, hc.CLI.StdinBase64 = encode(in.Stdin.Bytes())
		return hc, nil
	}
	hc.HTTP = &HTTPInput{Requests: make([]Request, 0, len(k.Interactions))}
	for i := range k.Interactions {
		r, err := request(c, i, nil, opts)
		if err != nil {
			return hc, fmt.Errorf("%s: %w", k.Path, err)
		}
		hc.HTTP.Requests = append(hc.HTTP.Requests, r)
	}
	return hc, nil
}

// request is request i of an HTTP case after the fake's earlier responses.
func request(c verify.Case, i int, earlier []cassettes.Response, opts verify.Options) (Request, error) {
	in, target, err := verify.Outgoing(c, i, earlier, opts)
	if err != nil {
		return Request{}, err
	}
	r := Request{Method: in.Request.Method, URL: c.Cassette.Interactions[i].Request.URL, Target: target,
		Headers: map[string][]string(in.Request.Headers)}
	r.Body, r.BodyBase64 = encode(in.Request.Body.Bytes())
	return r, nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
