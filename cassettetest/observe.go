package cassettetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Observe returns h wrapped so that every request it serves is written as
// a call to adapter made by t, for `cassette coverage`: put it between
// the code under test and an in-process HTTP fake.
//
//	srv := httptest.NewServer(cassettetest.Observe(t, "github", fakegithub.New()))
//
// Calls go to $CASSETTE_OBSERVE_DIR (set by `cassette observe`), else to
// a run of the test binary's own below .cassette/observed of the project
// whose cassette.yaml is found in the working directory or up to three
// above it; neither is a test failure.
func Observe(t testing.TB, adapter string, h http.Handler) http.Handler {
	t.Helper()
	return observer(t, adapter, cfgschema.KindHTTP).Handler(h)
}

// ObserveCLI returns fn wrapped so that every call is written as a call
// to adapter made by t (the command is the adapter's real.command, or its
// name): put it between the code under test and an in-process CLI fake.
func ObserveCLI(t testing.TB, adapter string, fn CLIFunc) CLIFunc {
	t.Helper()
	o := observer(t, adapter, cfgschema.KindCLI)
	command := adapter
	if a := o.adapter; a != nil && len(a.Real.Command) > 0 {
		command = filepath.Base(a.Real.Command[0])
	}
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
		in := &countingReader{r: stdin}
		if stdin == nil {
			in.r = eofReader{}
		}
		code := fn(ctx, args, in, stdout, stderr, env)
		c := coverage.Call{Argv: append([]string{command}, args...), Stdin: in.n > 0}
		if in.n > 0 && in.n <= coverage.MaxInput {
			c.Input = string(in.head)
		}
		if err := o.Observe(c, ""); err != nil {
			t.Errorf("cassettetest.ObserveCLI: %v", err)
		}
		return code
	}
}

// processStart is when this test binary first observed a call: its run's
// name, the same for every test of the process (set once, never changed).
var processStart = sync.OnceValue(time.Now)

// testObserver is an Observer with the adapter it found in cassette.yaml.
type testObserver struct {
	*coverage.Observer
	adapter *cfgschema.Adapter
}

// observer opens the test's observation file for adapter.
func observer(t testing.TB, adapter string, kind cfgschema.Kind) testObserver {
	t.Helper()
	dir := os.Getenv(coverage.EnvDir)
	proj, err := workspace.Find(".")
	if err != nil {
		t.Fatalf("cassettetest.Observe: %v", err)
	}
	cfg := proj.Config
	if dir == "" { // the test binary's own run, one for all its tests
		dir = coverage.OwnRun(filepath.Join(cfg.Dir, filepath.FromSlash(coverage.ObservedDir)), processStart(), os.Getpid())
	}
	w, err := coverage.OpenWriter(dir, fmt.Sprintf("go-%d", os.Getpid()), "go")
	if err != nil {
		t.Fatalf("cassettetest.Observe: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	a := cfg.Adapters[adapter]
	if a == nil {
		a = &cfgschema.Adapter{Kind: kind}
	} else if a.Kind != kind {
		t.Fatalf("cassettetest.Observe: adapter %s is a %s adapter in %s", adapter, a.Kind, cfg.Path)
	}
	rules, probs := coverage.NewRules(a)
	if len(probs) > 0 {
		t.Fatalf("cassettetest.Observe: %s: adapters.%s.coverage.%s: %s", cfg.Path, adapter, probs[0].Field, probs[0].Message)
	}
	return testObserver{Observer: &coverage.Observer{Adapter: adapter, Kind: kind, Rules: rules, Writer: w, Test: t.Name(),
		Redactor: redact.New(proj.Redact, redact.FromEnv(a.Real.Credentials, os.LookupEnv))}, adapter: a}
}

// countingReader counts what the fake read and keeps its first bytes.
type countingReader struct {
	r    io.Reader
	n    int
	head []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	if room := coverage.MaxInput - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	return n, err
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
