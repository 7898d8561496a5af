package verify

import (
	"context"
	"os"
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Answers runs the fakes on the cassettes' inputs as [Run] does (built,
// started, identities carried over) and returns what each fake answered,
// not normalized, in the order of list: a copy of the cassette with the
// fake's responses (the recorded requests kept) or the fake's output; nil
// where a case got none (its fake errored, or the cassette records no
// request). The run's error (a fake that did not build or start) is the
// error. `cassette learn` compares the answers with reality, to learn the
// normalizers a fake's own ids and times need.
func Answers(ctx context.Context, list []*cassettes.Cassette, opts Options) ([]*cassettes.Cassette, error) {
	cases, err := Plan(opts.Config, list, Selection{})
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	got := map[*cassettes.Cassette]*cassettes.Cassette{}
	opts.answered = func(c Case, answer *cassettes.Cassette) {
		mu.Lock()
		defer mu.Unlock()
		got[c.Cassette] = answer
	}
	o := Run(ctx, cases, opts)
	if o.Err != nil {
		return nil, o.Err
	}
	out := make([]*cassettes.Cassette, len(list))
	for i, c := range list {
		out[i] = got[c]
	}
	return out, nil
}

// ProjectAnswers is Answers on project p's fakes, as `cassette verify` runs
// them (its options, the fakes' logs in logDir): cassette learn's fake.
func ProjectAnswers(p *workspace.Project, logDir string) func(context.Context, []*cassettes.Cassette) ([]*cassettes.Cassette, error) {
	return func(ctx context.Context, list []*cassettes.Cassette) ([]*cassettes.Cassette, error) {
		opts := ProjectOptions(p, os.LookupEnv)
		opts.LogDir = logDir
		return Answers(ctx, list, opts)
	}
}
