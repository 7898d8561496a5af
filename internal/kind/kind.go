package kind

import (
	"context"
	"fmt"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// Kind is one adapter kind: what its adapters' declarations must hold,
// what of its cassettes is compared, how a report shows them and what
// coverage counts as their calls.
type Kind interface {
	// Name is the kind as cassette.yaml's `kind:` and a cassette's spell it.
	Name() cfgschema.Kind
	// CheckAdapter returns the problems of adapter a's declaration, at
	// field f ("adapters.<name>"), that the schema cannot say; each has
	// its Field, Message and Expected set (the loader adds file and line).
	CheckAdapter(f string, a *cfgschema.Adapter) []outcome.Problem
	// Compared returns what the comparison of a recording (want) and the
	// side under test (got) holds of each: the cassettes themselves, or
	// copies with what is not the kind's contract left out.
	Compared(want, got *cassettes.Cassette) (w, g *cassettes.Cassette)
	// Incomparable is the drift that says why a re-recording (got) cannot
	// be compared with its recording (want) field by field (another
	// number of calls, no output), or nil.
	Incomparable(want, got *cassettes.Cassette) *verdict.Drift
	// Actions is a compared cassette as a report shows one side of a
	// case, in the report contract's action shapes ("http", "proc").
	Actions(c *cassettes.Cassette) []verdict.Action
	// Calls are a cassette's calls as coverage shapes them, in order.
	Calls(c *cassettes.Cassette) []Call
}

// Call is one call of a cassette as coverage shapes it: a process run
// (Proc: its argv, whether it read stdin) or an HTTP request.
type Call struct {
	Proc  bool
	Argv  []string
	Stdin bool

	Method, URL, ContentType string
	Body                     []byte
}

// Fake is an adapter's fake as verify hands it to a [Replayer]: its
// declaration in cassette.yaml, its base_url with ${VAR}s expanded, and
// the directory it runs in. verify starts no process for it: a kind whose
// fake is a command runs it from Decl.
type Fake struct {
	Adapter string
	Decl    cfgschema.Fake
	BaseURL string
	Dir     string
}

// Replayer is a kind whose cases verify plays through the kind: Replay
// sends the recorded input of c to the fake and returns a copy of c that
// holds what the fake answered, for the comparison, and the actions it
// took, for the report. An error is the fake's failure to answer (verify
// reports it as the fake's error, never as drift).
type Replayer interface {
	Replay(ctx context.Context, fake Fake, c *cassettes.Cassette) (*cassettes.Cassette, []verdict.Action, error)
}

// Registry is the kinds a run knows, by name, in the order they were
// registered. A nil *Registry holds the built-ins (HTTP, CLI).
type Registry struct {
	kinds map[cfgschema.Kind]Kind
	order []cfgschema.Kind
}

// Builtins returns a new registry of the file format's own kinds, http and
// cli, for a door to Register its own in.
func Builtins() *Registry {
	r := &Registry{kinds: map[cfgschema.Kind]Kind{}}
	for _, k := range []Kind{HTTP(), CLI()} {
		_ = r.Register(k) // distinct names: cannot fail
	}
	return r
}

// builtins is what a nil *Registry stands for: the kinds Builtins
// registers, one source for Lookup and Names.
var builtins = Builtins()

// Register adds k; a second kind of the same name is an error.
func (r *Registry) Register(k Kind) error {
	if r.kinds == nil {
		r.kinds = map[cfgschema.Kind]Kind{}
	}
	if _, dup := r.kinds[k.Name()]; dup {
		return fmt.Errorf("kind %q is registered twice", k.Name())
	}
	r.kinds[k.Name()] = k
	r.order = append(r.order, k.Name())
	return nil
}

// Lookup returns the kind of that name; no name is http, as the loader
// reads a cassette without `kind:`.
func (r *Registry) Lookup(name cfgschema.Kind) (Kind, bool) {
	if name == "" {
		name = cfgschema.KindHTTP
	}
	if r == nil {
		r = builtins
	}
	k, ok := r.kinds[name]
	return k, ok
}

// Names are the registered kinds' names in registration order (the
// built-ins first).
func (r *Registry) Names() []string {
	if r == nil {
		r = builtins
	}
	out := make([]string, len(r.order))
	for i, n := range r.order {
		out[i] = string(n)
	}
	return out
}

// Loading is the registry as cassettes' loader asks it (cfgschema.Kinds):
// which kinds a cassette.yaml or a cassette may name, and the rules of a
// registered kind's adapter.
func (r *Registry) Loading() cfgschema.Kinds { return loading{r} }

type loading struct{ r *Registry }

// Of is the registry behind the kinds a project was loaded with
// (workspace.Project.Kinds, a Loading), so that a door asks the project
// for its kinds as for the rest of its options; nil (the built-ins) for a
// project loaded without one.
func Of(k cfgschema.Kinds) *Registry {
	if l, ok := k.(loading); ok {
		return l.r
	}
	return nil
}

func (l loading) Known(k cfgschema.Kind) bool {
	_, ok := l.r.Lookup(k)
	return ok
}

func (l loading) Names() []string { return l.r.Names() }

func (l loading) AdapterProblems(f string, a *cfgschema.Adapter) []outcome.Problem {
	k, ok := l.r.Lookup(a.Kind)
	if !ok {
		return nil // the schema check names it
	}
	return k.CheckAdapter(f, a)
}
