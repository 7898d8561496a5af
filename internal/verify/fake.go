package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/procgroup"
)

// DefaultFakeTimeout is how long a fake process may take to become ready
// when the adapter sets no fake.timeout (long enough for `go run` to build).
const DefaultFakeTimeout = 90 * time.Second

// DefaultFakeBaseURL is fake.base_url when the adapter sets fake.command
// and no base_url.
const DefaultFakeBaseURL = "http://127.0.0.1:${PORT}"

// ExternalFakeTimeout bounds the readiness check of a fake verify did not
// start (fake.base_url without fake.command): it is up or it is not, and
// no build is in progress to wait for.
const ExternalFakeTimeout = 3 * time.Second

// Process is an HTTP fake that verify started and will stop.
type Process struct {
	Adapter string
	BaseURL string
	// LogPath is the fake's combined stdout and stderr: a shared fake's,
	// written as it comes. A fresh fake's is held in memory and is ""
	// until StopKeepingLog writes it (logPath is where).
	LogPath string

	child   *procgroup.Child // nil: a fake verify did not start
	port    string           // leased until Stop (port.go)
	out     *fakeOutput
	logPath string
	tr      *fakeTransport // the readiness check's connection, kept for the case (fakeclient.go)
	pace    readyPace
	hint    *readyHint // what the run learned of its adapter's fakes (launch.go)
	// readyStatus are the statuses besides 2xx and 3xx that mean ready
	// (fake.ready_status).
	readyStatus []int
	exited      <-chan struct{} // closed once the process exited and was reaped
}

// exitErr is the process's exit error, once exited is closed.
func (p *Process) exitErr() error {
	if p.child == nil {
		return nil
	}
	return p.child.Err()
}

// StartFake starts the fake of an HTTP adapter: it runs fake.command with a
// free loopback port in $PORT (and ${PORT} expanded in fake.base_url and
// fake.env), logs its output to logDir/<adapter>.log, and waits until
// GET base_url+ready answers 2xx or 3xx (or a status of fake.ready_status)
// — or fails with E_FAKE_UNAVAILABLE, saying how long it waited and what
// answered on the fake's port, if anything,
// naming the log and its last lines, when the process exits or the timeout
// passes first. An adapter with a base_url and no command is not started:
// its URL is checked for readiness only. The fake runs in fake.dir below
// cfg's directory, without the live credentials cfg declares (fakeEnv).
func StartFake(ctx context.Context, name string, a *cfgschema.Adapter, cfg *cfgschema.Config, logDir string) (*Process, error) {
	return startFake(ctx, name, name, a, cfg, newLaunch(a, cfg), logDir, true)
}

// startFake is StartFake with the log named after logName, written as it
// comes (toFile) or held in memory (a fresh fake's, see fakelog.go), and
// what every start of the adapter's fake shares in l (launch.go). The
// port is free when it is picked, but another process may bind it before
// the fake does: a fake that exits saying its address is in use is started
// again on a new port (at most three times in all).
func startFake(ctx context.Context, name, logName string, a *cfgschema.Adapter, cfg *cfgschema.Config, l *launch, logDir string, toFile bool) (*Process, error) {
	for attempt := 1; ; attempt++ {
		p, tail, err := startFakeOnce(ctx, name, logName, a, cfg, l, logDir, toFile)
		if err == nil || attempt == 3 || len(a.Fake.Command) == 0 || !strings.Contains(tail, "address already in use") {
			return p, err
		}
	}
}

// startFakeOnce starts the fake once; on failure it also returns the last
// lines of its output.
func startFakeOnce(ctx context.Context, name, logName string, a *cfgschema.Adapter, cfg *cfgschema.Config, l *launch, logDir string, toFile bool) (*Process, string, error) {
	p := &Process{Adapter: name, hint: &l.ready, tr: newFakeTransport()}
	port := ""
	if len(a.Fake.Command) > 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, "", unavailable(name, "cannot find a free loopback port", err, "", a)
		}
		p.port = port
	}
	lookup := l.lookupPort(port)
	base := a.Fake.BaseURL
	if base == "" && port != "" {
		base = DefaultFakeBaseURL // a fake verify starts listens on $PORT
	}
	p.BaseURL, _ = cfgschema.Expand(base, lookup)
	p.BaseURL = strings.TrimSuffix(p.BaseURL, "/")
	timeout := time.Duration(a.Fake.Timeout)
	if timeout <= 0 {
		timeout = DefaultFakeTimeout
	}
	if len(a.Fake.Command) == 0 {
		p.exited = closed
		p.readyStatus = a.Fake.ReadyStatus
		if err := p.waitReady(ctx, a.Fake.Ready, min(timeout, ExternalFakeTimeout)); err != nil {
			return nil, "", unavailable(name, "fake at "+p.BaseURL+" is not answering", err, "", a)
		}
		return p, "", nil
	}
	p.logPath = filepath.Join(logDir, logName+".log")
	if err := p.start(a, l, logDir, port, toFile); err != nil {
		releasePort(port)
		return nil, "", err
	}
	p.readyStatus = a.Fake.ReadyStatus
	if err := p.waitReady(ctx, a.Fake.Ready, timeout); err != nil {
		p.Stop()
		tail := p.tail(15)
		lp, _ := p.keepLog()
		return nil, tail, unavailable(name, "fake did not become ready at "+p.BaseURL+a.Fake.Ready, err, lp, a)
	}
	return p, "", nil
}

// maxFakeConns bounds the idle connections kept to a fake.
const maxFakeConns = 64

// fakeDialer dials fakes without TCP keep-alive: a connection to a fake
// on loopback lives as long as the fake, and the four setsockopt calls
// of net's default keep-alive were paid on every fresh fake's dial.
var fakeDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: -1}

// closed is the exited channel of a fake verify did not start.
var closed = func() <-chan struct{} { c := make(chan struct{}); close(c); return c }()

// start runs the fake's command in its own process group, its output on a
// pipe read by a fakeOutput (into the log file when toFile).
func (p *Process) start(a *cfgschema.Adapter, l *launch, logDir, port string, toFile bool) error {
	name := p.Adapter
	var file *os.File
	if toFile {
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return unavailable(name, "cannot create the fake log directory", err, "", a)
		}
		f, err := os.Create(p.logPath)
		if err != nil {
			return unavailable(name, "cannot create the fake log", err, "", a)
		}
		file, p.LogPath = f, p.logPath
	}
	r, w, err := outputPipe()
	if err != nil {
		if file != nil {
			file.Close()
		}
		return unavailable(name, "cannot create a pipe for the fake's output", err, "", a)
	}
	// `go run` has a child: the whole group is stopped (procgroup).
	child, err := l.cmd.Start(l.dir, l.environ(port), w)
	w.Close() // the fake (and its children) hold the write end now
	p.out = newFakeOutput(r, file)
	if err != nil {
		p.out.close(0)
		lp, _ := p.keepLog()
		return unavailable(name, fmt.Sprintf("cannot start fake command %q: %v", strings.Join(a.Fake.Command, " "), err), err, lp, a)
	}
	p.child, p.exited = child, child.Done()
	return nil
}

// readyPace is when readiness checks a fake verify started: once it has
// written a line, or first after first (a fake that logs nothing), then
// every delay, doubling from start up to max. The zero value is
// defaultReadyPace.
type readyPace struct{ first, start, max time.Duration }

var defaultReadyPace = readyPace{first: 5 * time.Millisecond, start: time.Millisecond, max: 500 * time.Millisecond}

// waitReady checks the ready path until it answers 2xx or 3xx (or a
// declared status). A fake verify started is checked when it writes a line
// (most log one once they listen) and, when that is not enough, at growing
// intervals (see readyPace); a fake verify did not start is checked at
// once, then at the same intervals. Its error says how long it waited and
// what the last check found: nothing listening on the port, or an answer
// that is not ready.
func (p *Process) waitReady(ctx context.Context, ready string, timeout time.Duration) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Transport: p.tr,
		// a redirect is an answer: the fake is up, whatever the target is
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Only a process verify started can exit or speak; an external fake's
	// closed channel would wake every wait at once (a busy loop).
	pace := p.pace
	if pace == (readyPace{}) {
		pace = defaultReadyPace
	}
	var exited <-chan struct{}
	var spoke <-chan struct{}
	wait := time.Duration(0)
	if p.child != nil {
		exited, spoke, wait = p.exited, p.out.lines, p.hint.firstWait(pace.first)
	}
	delay := pace.start
	var last error
	woke := false // the check is the one a line of the fake's woke
	waited := func() string { return time.Since(start).Round(time.Millisecond).String() }
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if last == nil {
				last = ctx.Err()
			}
			return fmt.Errorf("not ready after waiting %s (at most %s): %v", waited(), timeout, p.listening(last))
		case <-exited:
			t.Stop()
			return fmt.Errorf("the fake exited after %s, before it was ready (%v)", waited(), p.exitErr())
		case <-spoke:
			t.Stop()
			woke = true
		case <-t.C:
			woke = false
		}
		ok, err := p.readyOnce(ctx, client, ready)
		if ok {
			if p.child != nil {
				p.hint.learn(woke, time.Since(start))
			}
			return nil
		}
		if errors.Is(err, errNotAURL) {
			return err
		}
		if last == nil || ctx.Err() == nil { // a check the deadline cut says nothing of the port
			last = err
		}
		wait, delay = delay, min(delay*2, pace.max)
	}
}

var errNotAURL = errors.New("fake.base_url is not a URL")

// errNotReady is a ready check that something answered, not with 2xx/3xx.
var errNotReady = errors.New("something listens there, but the ready check")

// listening words the last check's error by what it says of the port.
func (p *Process) listening(last error) string {
	where := p.BaseURL
	if p.port != "" {
		where = "$PORT " + p.port + " (" + p.BaseURL + ")"
	}
	switch {
	case errors.Is(last, errNotReady):
		return last.Error()
	case errors.Is(last, syscall.ECONNREFUSED):
		return "nothing listened on " + where + " (connection refused): does the fake listen on $PORT?"
	}
	return fmt.Sprintf("no answer from %s: %v", where, last)
}

// readyCheckTimeout bounds one ready check.
const readyCheckTimeout = 2 * time.Second

// readyOnce asks the ready path once, for at most readyCheckTimeout: a
// deadline of the check's context, not http.Client.Timeout, which started
// a goroutine and a timer of its own for every check (a fresh fake's is
// one a case).
func (p *Process) readyOnce(ctx context.Context, client *http.Client, ready string) (bool, error) {
	check, cancel := context.WithTimeout(ctx, readyCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(check, http.MethodGet, p.BaseURL+ready, nil)
	if err != nil {
		return false, fmt.Errorf("%w: %q: %v", errNotAURL, p.BaseURL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		if check.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w (no answer within %s)", err, readyCheckTimeout)
		}
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 400 || slices.Contains(p.readyStatus, resp.StatusCode) {
		return true, nil
	}
	want := "2xx or 3xx"
	if len(p.readyStatus) > 0 {
		want += fmt.Sprintf(" or %v (fake.ready_status)", p.readyStatus)
	}
	return false, fmt.Errorf("%w GET %s answered %s, want %s", errNotReady, ready, resp.Status, want)
}

// readyBound is a, its fake.timeout bounded by d (verify --timeout) when
// d is set: a copy, a itself is not changed.
func readyBound(a *cfgschema.Adapter, d time.Duration) *cfgschema.Adapter {
	if a == nil || d <= 0 {
		return a
	}
	b := *a
	if t := time.Duration(b.Fake.Timeout); t <= 0 || t > d {
		b.Fake.Timeout = cassettes.Duration(d)
	}
	return &b
}

// alive reports whether the process is still running, waiting up to d for
// an exit in progress to be reaped (a fake that crashed while answering has
// closed its connection a moment before its exit is seen).
func (p *Process) alive(d time.Duration) (bool, error) {
	if p.child == nil {
		return true, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return false, p.exitErr()
	case <-t.C:
		return true, nil
	}
}

// Stop terminates the fake's process group (SIGTERM, then SIGKILL after 5 s)
// and closes its log.
func (p *Process) Stop() {
	if p.child != nil && p.child.Pid > 0 {
		pgid := p.child.Pid
		_ = procgroup.Signal(pgid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
		}
		// Whatever of the group is left (a child that ignored SIGTERM, the
		// leader itself after 5 s) is killed: nothing outlives verify.
		_ = procgroup.Kill(pgid)
		<-p.exited
		releasePort(p.port) // its group is gone: the port may go to the next fake
	}
	p.closeEnds()
}

// closeEnds closes verify's ends of a stopped fake: its output and its
// connections.
func (p *Process) closeEnds() {
	if p.out != nil {
		p.out.close(time.Second)
	}
	if p.tr != nil {
		p.tr.CloseIdleConnections()
	}
}

// stopInBackground stops the fake as Stop does, without waiting for it:
// the rest (the group killed once its leader exited or after 5 s, the
// port released, the output and connections closed) is done by the
// goroutine that reaps the fake (procgroup.Child.AfterExit). The case's
// goroutine neither waits for the exit nor is woken by it: a passing
// case's fake, whose log nothing reads, is stopped so. When stops already
// hold every slot (fakes slow to exit), it waits as Stop does.
func (p *Process) stopInBackground(stops *backgroundStops) {
	if p.child == nil || p.child.Pid <= 0 {
		p.Stop()
		return
	}
	select {
	case stops.slots <- struct{}{}:
	default:
		p.Stop()
		return
	}
	stops.wg.Add(1)
	pgid := p.child.Pid
	_ = procgroup.Signal(pgid, syscall.SIGTERM)
	kill := time.AfterFunc(5*time.Second, func() { _ = procgroup.Kill(pgid) })
	p.child.AfterExit(func() {
		kill.Stop()
		// Whatever of the group is left is killed, as Stop does.
		_ = procgroup.Kill(pgid)
		releasePort(p.port)
		p.closeEnds()
		<-stops.slots
		stops.wg.Done()
	})
}

// backgroundStops are a run's fakes being stopped in the background: at
// most cap(slots) at once (a fake that ignores SIGTERM lives 5 s more).
type backgroundStops struct {
	wg    sync.WaitGroup
	slots chan struct{}
}

func newBackgroundStops(n int) *backgroundStops {
	return &backgroundStops{slots: make(chan struct{}, n)}
}

// wait returns once every fake stopped in the background is gone.
func (b *backgroundStops) wait() { b.wg.Wait() }

// StopKeepingLog stops the fake and, when keep is true, writes a fresh
// fake's output (held in memory) to its log file. It returns the log's
// path, or "" when there is none.
func (p *Process) StopKeepingLog(keep bool) string {
	p.Stop()
	if !keep {
		return p.LogPath
	}
	lp, _ := p.keepLog()
	return lp
}

// keepLog writes the output held in memory to the log file (once the
// fake's output has ended, or on a failure to start) and returns its path.
func (p *Process) keepLog() (string, error) {
	if p.LogPath != "" || p.out == nil || p.logPath == "" {
		return p.LogPath, nil
	}
	if err := os.MkdirAll(filepath.Dir(p.logPath), 0o755); err != nil {
		return "", err
	}
	if err := p.out.save(p.logPath); err != nil {
		return "", err
	}
	p.LogPath = p.logPath
	return p.LogPath, nil
}

// tail returns the last lines of the fake's output, for messages.
func (p *Process) tail(lines int) string {
	if p.out != nil && p.out.file == nil {
		return p.out.tail(lines)
	}
	return LogTail(p.LogPath, lines)
}

// LogTail returns the last lines of the fake's log, for messages.
func LogTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return lastLines(string(data), lines)
}

func unavailable(name, msg string, err error, logPath string, a *cfgschema.Adapter) *outcome.Error {
	e := &outcome.Error{Reason: outcome.EFakeUnavailable, Message: fmt.Sprintf("adapter %s: %s", name, msg), Err: err}
	if logPath != "" {
		e.Problems = append(e.Problems, outcome.Problem{File: logPath, Message: "the fake's log; its last lines:\n" + indent(LogTail(logPath, 15), "    ")})
	}
	if len(a.Fake.Command) > 0 {
		e.NextStep = "PORT=8080 " + outcome.Command(a.Fake.Command...) // run by hand: watch it start
	} else {
		e.NextStep = outcome.Command("curl", "-sS", a.Fake.BaseURL+a.Fake.Ready) // is the fake running?
	}
	return e
}

func indent(s, pre string) string {
	if s == "" {
		return pre + "(empty)"
	}
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// BuildFake runs the adapter's fake.build command once, in fake.dir below
// cfg's directory and without the live credentials cfg declares (fakeEnv),
// logging to logDir/<adapter>.build.log. A failed build is
// E_FAKE_UNAVAILABLE.
func BuildFake(ctx context.Context, name string, a *cfgschema.Adapter, cfg *cfgschema.Config, logDir string) (logPath string, err error) {
	if len(a.Fake.Build) == 0 {
		return "", nil
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return "", unavailable(name, "cannot create the fake log directory", err, "", a)
	}
	logPath = filepath.Join(logDir, name+".build.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", unavailable(name, "cannot create the build log", err, "", a)
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, a.Fake.Build[0], a.Fake.Build[1:]...)
	cmd.Dir = cfgschema.ResolvePath(cfg.Dir, a.Fake.Dir)
	cmd.Env = newFakeEnv(cfg).environ()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		e := unavailable(name, fmt.Sprintf("fake.build %q failed", strings.Join(a.Fake.Build, " ")), err, logPath, a)
		e.NextStep = outcome.Command(a.Fake.Build...) // build it by hand to see why
		return logPath, e
	}
	return logPath, nil
}

// fakeEnv is what a fake sees of verify's environment: all of it but the
// variables that hold live credentials, as cfgschema.Config.FakeEnviron
// builds it for every door that runs a fake.
type fakeEnv struct{ cfg *cfgschema.Config }

func newFakeEnv(cfg *cfgschema.Config) fakeEnv { return fakeEnv{cfg: cfg} }

// environ is os.Environ() and extra (NAME=value), less the secret ones.
func (f fakeEnv) environ(extra ...string) []string { return f.cfg.FakeEnviron(os.Environ(), extra...) }

// lookup is os.LookupEnv, to which the secret variables are unset.
func (f fakeEnv) lookup(k string) (string, bool) { return f.lookuper()(k) }

// lookuper is os.LookupEnv, to which the secret variables are unset.
func (f fakeEnv) lookuper() func(string) (string, bool) { return f.cfg.FakeLookup(os.LookupEnv) }
