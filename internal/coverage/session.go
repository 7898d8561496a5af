package coverage

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// Session sets up one `cassette observe` run: each HTTP adapter's fake
// behind an observing reverse proxy, each CLI adapter's fake behind a shim
// on PATH, and the environment that points the test command at them.
type Session struct {
	Config *cfgschema.Config
	// Adapters are the adapters to observe (nil: all of them).
	Adapters []string
	// Observed is the directory observations go to; Work holds the shims.
	Observed, Work string
	// Self is the cassette binary the shims run (an absolute path) when
	// ShimBin is "" or no observe run answers them; ShimBin is
	// cmd/cassette-shim, which sends each call to this run's ShimServer
	// and runs the fake, at a fraction of Self's start-up.
	Self, ShimBin string
	// Command is the test command (for next steps).
	Command []string
	// StartHTTP starts (or finds) an HTTP adapter's fake and returns its
	// base URL and how to stop it; Build runs a CLI adapter's fake.build.
	StartHTTP func(ctx context.Context, name string, a *cfgschema.Adapter) (baseURL string, stop func(), err error)
	Build     func(ctx context.Context, name string, a *cfgschema.Adapter) error
	// LookupEnv reads the environment (os.LookupEnv when nil).
	LookupEnv func(string) (string, bool)
}

// Started is a running session.
type Started struct {
	// Env are the variables the test command gets besides its own: PATH
	// with the shims first, CASSETTE_OBSERVE_DIR, CASSETTE_<ADAPTER>_URL.
	Env []string
	// URLs are the observing proxies' URLs and Shims the shims, by adapter.
	URLs, Shims map[string]string
	// InProcess are the adapters whose fakes live in the test command's
	// process (fake.in_process, nothing to start): their bindings observe
	// themselves into CASSETTE_OBSERVE_DIR, and no shim stands for them.
	InProcess []string
	closers   []func()
	shims     *ShimServer // the CLI shims' socket, once one is written
}

// Close stops the proxies and the fakes.
func (st *Started) Close() {
	for i := len(st.closers) - 1; i >= 0; i-- {
		st.closers[i]()
	}
	st.closers = nil
}

// URLVar is the variable that gives the test command an HTTP adapter's
// observed address: CASSETTE_<ADAPTER>_URL, the name upper-cased with
// every other character than a letter or digit as _.
func URLVar(adapter string) string {
	return "CASSETTE_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, adapter) + "_URL"
}

// Start starts the fakes, proxies and shims. On error, what was started is
// stopped.
func (s *Session) Start(ctx context.Context) (*Started, error) {
	if s.LookupEnv == nil {
		s.LookupEnv = os.LookupEnv
	}
	st := &Started{URLs: map[string]string{}, Shims: map[string]string{}}
	if err := s.start(ctx, st); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// start is Start's work; on error, st holds what to stop.
func (s *Session) start(ctx context.Context, st *Started) error {
	bin := filepath.Join(s.Work, "bin")
	if err := os.RemoveAll(bin); err != nil {
		return err
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, name := range s.Config.Order {
		if s.Adapters != nil && !slices.Contains(s.Adapters, name) {
			continue
		}
		a := s.Config.Adapters[name]
		if a.InProcessOnly() {
			st.InProcess = append(st.InProcess, name)
			continue
		}
		var err error
		switch a.Kind {
		case cfgschema.KindHTTP:
			err = s.startHTTP(ctx, st, name, a)
		case cfgschema.KindCLI:
			err = s.writeShim(ctx, st, bin, name, a)
		}
		if err != nil {
			return err
		}
	}
	path, _ := s.LookupEnv("PATH")
	st.Env = append(st.Env, "PATH="+bin+string(os.PathListSeparator)+path, EnvDir+"="+s.Observed)
	// go test answers a package whose inputs did not change from its cache,
	// running no test: its calls would not be observed. And go build stamps
	// VCS information by running git: with a git shim on PATH, the go
	// command's own calls would be taken for the code's.
	flags, _ := s.LookupEnv("GOFLAGS")
	flags += " -count=1"
	if _, ok := st.Shims["git"]; ok {
		flags += " -buildvcs=false"
	}
	st.Env = append(st.Env, "GOFLAGS="+strings.TrimSpace(flags))
	return nil
}

// startHTTP puts an observing reverse proxy in front of an HTTP fake.
func (s *Session) startHTTP(ctx context.Context, st *Started, name string, a *cfgschema.Adapter) error {
	base, stop, err := s.StartHTTP(ctx, name, a)
	if err != nil {
		return err
	}
	st.closers = append(st.closers, stop)
	target, err := url.Parse(base)
	if err != nil || target.Host == "" {
		return &outcome.Error{Reason: outcome.ECfgParse, Message: fmt.Sprintf("adapter %s: fake base URL %q is not an http:// URL with a host", name, base),
			Problems: []outcome.Problem{{File: s.Config.Path, Line: s.Config.Line("adapters." + name + ".fake"), Field: "adapters." + name + ".fake.base_url", Message: "not a URL with a host", Expected: "http://127.0.0.1:${PORT}"}},
			NextStep: outcome.Command("cassette", "validate", "--config", s.Config.Path)}
	}
	w, err := OpenWriter(s.Observed, "proxy-"+name, "proxy")
	if err != nil {
		return err
	}
	st.closers = append(st.closers, func() { w.Close() })
	rules, _ := NewRules(a)
	obs := &Observer{Adapter: name, Kind: cfgschema.KindHTTP, Rules: rules, Writer: w,
		Redactor: redact.New(s.Config.Redaction(), redact.FromEnv(a.Real.Credentials, s.LookupEnv))}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: obs.Proxy(target), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	st.closers = append(st.closers, func() { _ = srv.Close() })
	u := "http://" + ln.Addr().String()
	st.URLs[name] = u
	st.Env = append(st.Env, URLVar(name)+"="+u)
	return nil
}

// writeShim builds a CLI fake and writes the shim that runs it under the
// real command's name.
func (s *Session) writeShim(ctx context.Context, st *Started, bin, name string, a *cfgschema.Adapter) error {
	command := name
	if len(a.Real.Command) > 0 {
		command = filepath.Base(a.Real.Command[0])
	}
	if prev, ok := st.Shims[command]; ok {
		return &outcome.Error{Reason: outcome.ECfgParse, Message: fmt.Sprintf("adapters %s and %s both run %s: a shim on PATH can stand for one of them", prev, name, command),
			Problems: []outcome.Problem{{File: s.Config.Path, Line: s.Config.Line("adapters." + name), Field: "adapters." + name + ".real.command", Message: "the same command as adapter " + prev}},
			NextStep: outcome.ShellJoin(append([]string{"cassette", "observe", "--adapter", name, "--"}, s.Command...))}
	}
	if err := s.Build(ctx, name, a); err != nil {
		return err
	}
	dir := cfgschema.ResolvePath(s.Config.Dir, a.Fake.Dir)
	fake := fakeCommand(a.Fake.Command, dir)
	project, _ := filepath.Abs(s.Config.Dir)
	shim := &Shim{Spec: shimcall.Spec{Adapter: name, Command: command, Fake: fake, Bin: bin, Observed: s.Observed, Project: project, Credentials: a.Real.Credentials,
		Withhold: s.Config.SecretVars(), Redact: s.Config.Redact.Names, Self: s.Self}, Coverage: a.Coverage}
	if a.Fake.Dir != "" {
		shim.Dir = dir
	}
	for _, k := range sortedKeys(a.Fake.Env) {
		v, _ := cfgschema.Expand(a.Fake.Env[k], s.Config.FakeLookup(s.LookupEnv))
		shim.Env = append(shim.Env, k+"="+v)
	}
	run := []string{s.Self, "observe", "--shim"}
	if s.ShimBin != "" {
		if st.shims == nil {
			srv, err := ListenShims()
			if err != nil {
				return err
			}
			st.shims = srv
			st.closers = append(st.closers, srv.Close)
		}
		st.shims.Add(shim)
		shim.Socket, run = st.shims.Socket(), []string{s.ShimBin}
	}
	spec, err := shim.Encode()
	if err != nil {
		return err
	}
	specPath := filepath.Join(s.Work, "shim-"+name+".spec")
	if err := os.WriteFile(specPath, spec, 0o600); err != nil {
		return err
	}
	script := shimScript(run, specPath, "# cassette observe: "+command+" runs the fake of adapter "+name+", and each call is observed.\n")
	path := filepath.Join(bin, command)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return err
	}
	st.Shims[command] = name
	return nil
}

// shimScript is the file a shim is on PATH: a script that runs run with
// the spec and the call's arguments. With run one program (cassette-shim)
// it is that program's script (#!cassette-shim SPEC: the kernel runs it,
// with the spec, the script's path and the arguments) when the line is
// short enough for every kernel (127 bytes) and the program's path has no
// blank; otherwise a shell script that execs run (a shell's start is
// about 0.8 ms of CPU a call).
func shimScript(run []string, specPath, comment string) string {
	if line := "#!" + run[0] + " " + specPath; len(run) == 1 && len(line) <= 127 && !strings.ContainsAny(run[0], " \t") && !strings.ContainsAny(specPath, "\n") {
		return line + "\n" + comment
	}
	return "#!/bin/sh\n" + comment + "exec " + outcome.ShellJoin(append(run, specPath, "--")) + " \"$@\"\n"
}

// fakeCommand makes a fake's command line runnable from any directory:
// the shim runs it in the caller's. The program is found now (before the
// shims are on PATH, so that a fake named like the real command is never
// the shim); arguments naming a file of fake.dir become absolute paths.
func fakeCommand(command []string, dir string) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fake := slices.Clone(command)
	if !strings.ContainsRune(fake[0], filepath.Separator) {
		if p, err := exec.LookPath(fake[0]); err == nil {
			fake[0] = p
		}
	}
	for i, arg := range fake {
		if (i > 0 && strings.HasPrefix(arg, "-")) || (i == 0 && !strings.ContainsRune(arg, filepath.Separator)) {
			continue
		}
		p := cfgschema.ResolvePath(dir, arg)
		if _, err := os.Stat(p); err == nil || i == 0 {
			fake[i] = p
		}
	}
	return fake
}

// Encode is the shim's spec file (shimcall.Spec.Encode), the adapter's
// coverage settings in it as JSON, which cassette-shim passes on unread.
func (s *Shim) Encode() ([]byte, error) {
	cov, err := json.Marshal(s.Coverage)
	if err != nil {
		return nil, err
	}
	spec := s.Spec
	spec.CoverageJSON = string(cov)
	return spec.Encode(), nil
}

// LoadShim reads the spec a shim was written with (Encode's).
func LoadShim(path string) (*Shim, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	spec, err := shimcall.Parse(path, data)
	if err != nil {
		return nil, err
	}
	s := &Shim{Spec: *spec}
	if spec.CoverageJSON != "" {
		if err := json.Unmarshal([]byte(spec.CoverageJSON), &s.Coverage); err != nil {
			return nil, fmt.Errorf("%s: field coverage: %w (run cassette observe again)", path, err)
		}
	}
	return s, nil
}
