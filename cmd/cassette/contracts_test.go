package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/interrupt"
	"github.com/cassette-dev/cassette/internal/procgroup"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/speccheck"
)

// The token a crashing fake logs: a key of a known format (GitHub's), in
// no declared variable, so that only the redaction of known formats can
// keep it out of what cassette writes and prints.
const crashToken = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c"

// envToken is the value of a credential-named variable of every run's
// environment (no adapter declares it): the bundle's environment copy must
// not hold it.
const envToken = "tok-contract-env-0123456789"

// contractProject is the project every run of TestEveryRunEndsOneWay
// starts from: a CLI adapter whose real side and fake are shell scripts
// switched by files of the project (drift, real-drift, hang.fifo), and a
// git forge on a bare remote beside it.
var contractProject = map[string]string{
	"cassette.yaml": `version: 1
adapters:
  tool:
    kind: cli
    real: {command: [tool]}
    fake: {command: [sh, fake.sh]}
refresh:
  forge: {kind: git, remote: origin}
`,
	// the real side says "changed" once the project has a file real-drift;
	// with a FIFO hang.fifo it says it is ready there and hangs
	"real/tool": `#!/bin/sh
d=$(dirname "$0")/..
if [ -p "$d/hang.fifo" ]; then echo ready > "$d/hang.fifo"; exec sleep 1000; fi
if [ -e "$d/real-drift" ]; then echo "changed tool: $1"; else echo "real tool: $1"; fi
`,
	"fake.sh": `d=$(dirname "$0")
if [ -p "$d/hang.fifo" ]; then echo ready > "$d/hang.fifo"; exec sleep 1000; fi
if [ -e "$d/drift" ]; then echo "fake tool: $1"; else echo "real tool: $1"; fi
`,
	"tests.sh": "tool init\ntool add\n",
	"govcr/x.yaml": `version: 2
interactions:
  - request: {method: GET, url: "http://svc.test/x"}
    response: {code: 200, status: 200 OK, body: "x\n", headers: {}}
`,
}

// crashConfig adds an HTTP adapter whose fake logs crashToken and exits
// before it is ready: verify ends E_FAKE_UNAVAILABLE (exit 3) and its
// reports and bundle carry the log.
const crashConfig = `  svc:
    kind: http
    real: {base_url: "http://svc.test"}
    fake:
      command: [sh, crash.sh]
      base_url: http://127.0.0.1:${PORT}
      ready: /ready
`

// crashScript logs crashToken on stderr and exits 2, as a Go program that
// panics (the token is put together when it runs: the project's files
// hold none).
const crashScript = "printf 'panic: token %s%s\\n' ghp_ " + crashRest + " >&2\nexit 2\n"

const crashRest = "R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c"

const crashCassette = `cassette: 1
version: 2
adapter: svc
scenario: hello
kind: http
interactions:
  - request: {method: GET, url: "http://svc.test/hello"}
    response: {code: 200, status: 200 OK, body: "hello\n", headers: {}}
`

// contractTemplate builds the project once (cassettes recorded from the
// real side, the tests' calls observed, committed and pushed to a bare
// remote) and returns the directory holding it ("p") and the remote.
func contractTemplate(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	for name, text := range contractProject {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) {
		t.Helper()
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = dir, contractEnv(dir)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("git", "init", "-q", "-b", "main", ".")
	run("cassette", "record", "--quiet", "--adapter", "tool", "--scenario", "init", "--", "tool", "init")
	run("cassette", "record", "--quiet", "--adapter", "tool", "--scenario", "add", "--", "tool", "add")
	run("cassette", "observe", "--", "sh", "tests.sh")
	run("git", "add", "-A")
	run("git", "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "project")
	run("git", "init", "-q", "--bare", filepath.Join(root, "remote.git"))
	run("git", "remote", "add", "origin", "../remote.git") // each copy of the project has its own
	run("git", "push", "-q", "origin", "main")
	return root
}

// contractEnv is the environment of a run in the project: its real/ on
// PATH, no colour, no job summary unless the case sets one.
func contractEnv(dir string) []string {
	env := []string{"NO_COLOR=1", "SHOP_TOKEN=" + envToken, // a credential of the environment, which the bundle must redact
		"PATH=" + filepath.Join(dir, "real") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	for _, k := range []string{"CASSETTE_CA_DIR", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// contractCase is one run: a command in one situation.
type contractCase struct {
	command string // verify, coverage, check, refresh, merge, record, import
	name    string // success, drift, config error, bad flag, SIGINT, crash
	args    []string
	stdin   string                         // check's input lines
	setup   func(dir string)               // changes the project before the run
	exit    int                            // the exit code every file and the process must say
	reports string                         // the report directory, relative to the project ("" for none)
	bundle  string                         // the --bundle-dir given ("" for none)
	sigint  bool                           // interrupt the run once it is ready (hang.fifo, feed, or check's first answer)
	feed    string                         // a FIFO of the project the run reads: it is ready once it opened it
	env     []string                       // more of the run's environment
	check   func(t *testing.T, dir string) // more checks of this case
	stdout  string                         // a line stdout must hold
}

func TestEveryRunEndsOneWay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cassette some 40 times")
	}
	// the recording proxy's CA, outside the projects (a copy would lose its key's 0600)
	t.Setenv("CASSETTE_CA_DIR", filepath.Join(t.TempDir(), "ca"))
	tmpl := contractTemplate(t)
	pass := `{"id":"tool/init","cli":{"stdout":"real tool: init\n","exit_code":0}}` + "\n"
	drift := `{"id":"tool/init","cli":{"stdout":"fake tool: init\n","exit_code":0}}` + "\n"
	crash := `{"id":"tool/init","cli":{"stdout":"","stderr":"panic: token ` + crashToken + `\n","exit_code":2}}` + "\n"
	touch := func(name string) func(string) {
		return func(dir string) { writeFile(t, filepath.Join(dir, name), "") }
	}
	badConfig := func(dir string) {
		writeFile(t, filepath.Join(dir, "cassette.yaml"), "version: 1\nbogus: true\nadapters: {}\n")
	}
	fifo := func(dir string) {
		mkfifo(t, filepath.Join(dir, "hang.fifo"))
	}
	shards := func(driftToo bool) func(string) {
		return func(dir string) {
			if driftToo {
				touch("drift")(dir)
			}
			for _, s := range []string{"1/2", "2/2"} {
				c := exec.Command("cassette", "verify", "--shard", s, "--report-dir", "s"+s[:1])
				c.Dir, c.Env = dir, contractEnv(dir)
				_ = c.Run() // its exit is the shard's verdict, judged by the merge
			}
		}
	}
	remoteHolds := func(want ...string) func(*testing.T, string) {
		return func(t *testing.T, dir string) {
			out, err := exec.Command("git", "-C", filepath.Join(dir, "..", "remote.git"), "for-each-ref", "--format=%(refname)").Output()
			if got := strings.Fields(string(out)); err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("the remote holds %q (%v), want %q", got, err, want)
			}
		}
	}
	remoteUntouched := remoteHolds("refs/heads/main")
	// no pushed commit and no file of the project (a fake's log, a PR text) holds the token
	remoteClean := func(t *testing.T, dir string) {
		out, err := exec.Command("git", "-C", filepath.Join(dir, "..", "remote.git"), "log", "--all", "-p").CombinedOutput()
		if err != nil || strings.Contains(string(out), crashToken) {
			t.Errorf("the remote's history holds the token (%v):\n%s", err, out)
		}
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if data, _ := os.ReadFile(p); err == nil && d.Type().IsRegular() && bytes.Contains(data, []byte(crashToken)) {
				t.Errorf("%s holds the token", p)
			}
			return nil
		})
	}
	// a cycle without drift saves its state, and pushes no refresh branch
	stateOnly := remoteHolds("refs/heads/cassette-refresh/state", "refs/heads/main")
	verifyArgs := []string{"verify", "--report-dir", "r", "--bundle-dir", "b"}
	coverageArgs := []string{"coverage", "--report-dir", "r"}
	checkArgs := []string{"check", "--report-dir", "r"}
	refreshArgs := []string{"refresh", "--once", "--report-dir", "r", "--bundle-dir", "b"}
	mergeArgs := []string{"report", "merge", "--out", "r", "s1", "s2"}
	recordArgs := []string{"record", "--adapter", "tool", "--scenario", "new", "--", "tool", "new"}
	importArgs := []string{"import", "govcr", "govcr", "--adapter", "imp"}
	with := func(args []string, more ...string) []string { return append(append([]string(nil), args...), more...) }
	cases := []contractCase{
		{command: "verify", name: "success", args: verifyArgs, exit: 0, reports: "r", bundle: "b"},
		{command: "verify", name: "drift", args: verifyArgs, setup: touch("drift"), exit: 1, reports: "r", bundle: "b",
			check: func(t *testing.T, dir string) { // the same drift again: the same alerts on GitHub
				again := exec.Command("cassette", "verify", "--report-dir", "r2")
				again.Dir, again.Env = dir, contractEnv(dir)
				_ = again.Run()
				if probs := speccheck.SameFingerprints(filepath.Join(dir, "r"), filepath.Join(dir, "r2")); len(probs) > 0 {
					t.Error(speccheck.Describe(probs))
				}
			}},
		{command: "verify", name: "config error", args: verifyArgs, setup: badConfig, exit: 2, reports: "r", bundle: "b"},
		{command: "verify", name: "bad flag", args: with(verifyArgs, "--no-such-flag"), exit: 2, reports: "r", bundle: "b"},
		{command: "verify", name: "SIGINT", args: verifyArgs, setup: fifo, sigint: true, exit: 3, reports: "r", bundle: "b"},
		{command: "verify", name: "crash", args: with(verifyArgs, "--adapter", "svc"), exit: 3, reports: "r", bundle: "b", setup: func(dir string) {
			appendFile(t, filepath.Join(dir, "cassette.yaml"), "adapters:\n"+crashConfig, true)
			writeFile(t, filepath.Join(dir, "cassettes", "svc", "hello.yaml"), crashCassette)
			// (the token is put together when the fake runs: cassette.yaml may hold none)
			writeFile(t, filepath.Join(dir, "crash.sh"), "printf 'starting with token %s%s\\n' ghp_ "+strings.TrimPrefix(crashToken, "ghp_")+"\nexit 1\n")
		}},

		{command: "coverage", name: "success", args: coverageArgs, exit: 0, reports: "r"},
		{command: "coverage", name: "drift", args: coverageArgs, exit: 1, reports: "r", setup: func(dir string) {
			os.Remove(filepath.Join(dir, "cassettes", "tool", "add.yaml")) // tool add is uncovered
		}},
		{command: "coverage", name: "config error", args: coverageArgs, setup: badConfig, exit: 2, reports: "r"},
		{command: "coverage", name: "bad flag", args: with(coverageArgs, "--no-such-flag"), exit: 2, reports: "r"},
		{command: "coverage", name: "invalid observation", args: coverageArgs, exit: 2, reports: "r", setup: func(dir string) {
			writeFile(t, filepath.Join(dir, ".cassette", "observed", "bad.jsonl"), "{not json\n")
		}},
		// coverage reads regular files only, and fast: the test's hold
		// (EnvTestHold) keeps it reading until the signal
		{command: "coverage", name: "SIGINT", args: coverageArgs, setup: fifo, env: []string{interrupt.EnvTestHold + "=hang.fifo"}, sigint: true, exit: 3, reports: "r"},
		{command: "coverage", name: "nothing observed", args: coverageArgs, exit: 2, reports: "r", setup: func(dir string) {
			os.RemoveAll(filepath.Join(dir, ".cassette", "observed"))
		}},

		{command: "check", name: "success", args: checkArgs, stdin: pass, exit: 0, reports: "r"},
		{command: "check", name: "drift", args: checkArgs, stdin: drift, exit: 1, reports: "r"},
		{command: "check", name: "config error", args: checkArgs, setup: badConfig, exit: 2, reports: "r"},
		{command: "check", name: "no config", args: with(checkArgs, "--config", "none.yaml"), exit: 2, reports: "r"},
		{command: "check", name: "bad flag", args: with(checkArgs, "--no-such-flag"), exit: 2, reports: "r"},
		{command: "check", name: "SIGINT", args: checkArgs, stdin: pass, sigint: true, exit: 3, reports: "r"},
		{command: "check", name: "crash", args: checkArgs, stdin: crash, exit: 1, reports: "r"},

		{command: "refresh", name: "success", args: refreshArgs, exit: 0, reports: "r", bundle: "b", check: stateOnly},
		{command: "refresh", name: "drift", args: refreshArgs, setup: touch("real-drift"), exit: 1, reports: "r", bundle: "b"},
		{command: "refresh", name: "config error", args: refreshArgs, setup: badConfig, exit: 2, reports: "r", bundle: "b", check: remoteUntouched},
		{command: "refresh", name: "bad flag", args: with(refreshArgs, "--no-such-flag"), exit: 2, reports: "r", bundle: "b", check: remoteUntouched},
		{command: "refresh", name: "SIGINT", args: refreshArgs, setup: func(dir string) { touch("real-drift")(dir); fifo(dir) },
			sigint: true, exit: 3, reports: "r", bundle: "b", check: remoteUntouched},

		// the real side changed and the fake crashes logging a token: the
		// replay gate of the new cassette fails
		{command: "refresh", name: "crash in the gate", args: refreshArgs, exit: 1, reports: "r", bundle: "b", check: remoteClean, setup: func(dir string) {
			touch("real-drift")(dir)
			writeFile(t, filepath.Join(dir, "fake.sh"), crashScript)
		}},
		// an HTTP fake that logs a token and exits before it is ready: the
		// gate cannot run (exit 3), the refresh branch is pushed all the same
		{command: "refresh", name: "crash of a fake that never starts", args: with(refreshArgs, "--adapter", "svc"), exit: 3, reports: "r", bundle: "b", check: remoteClean,
			setup: func(dir string) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello, changed\n") }))
				t.Cleanup(srv.Close)
				appendFile(t, filepath.Join(dir, "cassette.yaml"), "adapters:\n"+strings.Replace(crashConfig, "http://svc.test", srv.URL, 1), true)
				writeFile(t, filepath.Join(dir, "cassettes", "svc", "hello.yaml"), crashCassette)
				writeFile(t, filepath.Join(dir, "crash.sh"), "printf 'starting with token %s%s\\n' ghp_ "+crashRest+"\nexit 1\n")
			}},
		// the real side crashes logging a token while it is re-recorded
		{command: "refresh", name: "crash in the re-record", args: refreshArgs, exit: 3, reports: "r", bundle: "b", check: remoteUntouched, setup: func(dir string) {
			writeFile(t, filepath.Join(dir, "real", "tool"), "#!/bin/sh\n"+crashScript)
		}},

		// a dry run pushes nothing: its next step is the refresh that would,
		// and an adapter it skipped whole is not "no drift"
		{command: "refresh", name: "dry run drift", args: with(refreshArgs, "--dry-run", "--rerecord-unsafe"), setup: touch("real-drift"), exit: 1, reports: "r", bundle: "b",
			check: func(t *testing.T, dir string) {
				remoteUntouched(t, dir)
				if ns := nextStep(t, filepath.Join(dir, "r")); ns != "cassette refresh --once --adapter tool" {
					t.Errorf("next_step %q, want the real refresh of the adapter (its branch was never pushed)", ns)
				}
			}},
		{command: "refresh", name: "dry run skipped", args: with(refreshArgs, "--dry-run"), exit: 0, reports: "r", bundle: "b", check: remoteUntouched,
			stdout: "  tool: not checked: every cassette (2) was skipped, none re-recorded\n"},

		{command: "merge", name: "success", args: mergeArgs, setup: shards(false), exit: 0, reports: "r"},
		{command: "merge", name: "drift", args: mergeArgs, setup: shards(true), exit: 1, reports: "r"},
		// merge blocks opening a shard's run.json that is a FIFO until the test writes it
		{command: "merge", name: "SIGINT", args: mergeArgs, sigint: true, exit: 3, reports: "r", feed: "s1/run.json", setup: func(dir string) {
			shards(false)(dir)
			os.Remove(filepath.Join(dir, "s1", "run.json"))
			mkfifo(t, filepath.Join(dir, "s1", "run.json"))
		}},
		{command: "merge", name: "refused", args: mergeArgs[:len(mergeArgs)-1], setup: shards(false), exit: 2, reports: "r"},
		{command: "merge", name: "bad flag", args: with(mergeArgs, "--no-such-flag"), setup: shards(false), exit: 2, reports: "r"},

		{command: "record", name: "success", args: recordArgs, exit: 0},
		{command: "record", name: "config error", args: recordArgs, setup: badConfig, exit: 2},
		{command: "record", name: "bad flag", args: with(recordArgs[:5], "--no-such-flag", "--", "tool", "new"), exit: 2},
		{command: "record", name: "SIGINT", args: recordArgs, setup: fifo, sigint: true, exit: 3},

		{command: "import", name: "success", args: importArgs, exit: 0},
		{command: "import", name: "config error", args: importArgs, setup: badConfig, exit: 2},
		{command: "import", name: "bad flag", args: with(importArgs, "--no-such-flag"), exit: 2},
	}
	for _, c := range cases {
		t.Run(c.command+"/"+c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(tmpl)); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "p")
			if c.reports != "" { // a previous run's passing verdict, which the run must replace
				stale := exec.Command("cassette", "verify", "--report-dir", c.reports)
				stale.Dir, stale.Env = dir, contractEnv(dir)
				_ = stale.Run()
			}
			if c.setup != nil {
				c.setup(dir)
			}
			stepSummary := filepath.Join(dir, "step-summary.md")
			code, stdout, stderr := runContract(t, dir, c, append(c.env, "GITHUB_STEP_SUMMARY="+stepSummary)...)
			if code != c.exit {
				t.Fatalf("cassette %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), code, c.exit, stdout, stderr)
			}
			var probs []string
			if c.reports == "" || (c.command == "merge" && code == 2 && !contains(c.args, "--out")) {
				probs = speccheck.ConsoleOnly(code, stdout, stderr)
			} else {
				rdir := filepath.Join(dir, c.reports)
				probs = append(probs, speccheck.Console(rdir, code, stdout, stderr)...)
				opts := speccheck.Options{Shared: sharedDir(), Root: dir, README: "../../docs/reference/exit-codes.md", Live: c.command == "refresh" && code < 2 && c.name != "SIGINT"}
				if c.name == "no config" {
					opts.Root = "" // its one result is located at the config file to create
				}
				probs = append(probs, speccheck.Reports(rdir, opts)...)
				prior, _ := os.Stat(stepSummary)
				if prior != nil {
					probs = append(probs, speccheck.StepSummary(stepSummary, 0, rdir)...)
				}
				if c.command == "coverage" {
					probs = append(probs, speccheck.Coverage(rdir)...)
				}
				if c.command == "check" {
					probs = append(probs, speccheck.CheckStream(stdout, code, rdir)...)
				}
			}
			if c.bundle != "" {
				b := filepath.Join(dir, c.bundle)
				probs = append(probs, speccheck.NoEmptyDir(b)...)
				found, _ := filepath.Glob(filepath.Join(b, "*", "*", "bundle.json"))
				if len(found) > 1 {
					probs = append(probs, "more than one bundle: "+strings.Join(found, ", "))
				}
				for _, f := range found {
					probs = append(probs, speccheck.Bundle(filepath.Dir(f))...)
					if c.reports != "" {
						probs = append(probs, speccheck.SameSeed(filepath.Join(dir, c.reports), filepath.Dir(f))...)
					}
				}
			}
			summary, _ := os.ReadFile(stepSummary)
			probs = append(probs, speccheck.NoSecret([]string{crashToken, envToken}, map[string]string{"stdout": stdout, "stderr": stderr, "job summary": string(summary)},
				filepath.Join(dir, "r"), filepath.Join(dir, "b"))...)
			if len(probs) > 0 {
				t.Errorf("cassette %s (exit %d):\n%s\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), code, speccheck.Describe(probs), stdout, stderr)
			}
			if c.stdout != "" && !strings.Contains(stdout, c.stdout) {
				t.Errorf("stdout does not hold %q:\n%s", c.stdout, stdout)
			}
			if c.check != nil {
				c.check(t, dir)
			}
		})
	}
}

// runContract runs the case's command in dir (in a process group of its
// own, as a shell runs a job) and returns its exit code and output. A
// SIGINT case is interrupted once it is ready: the fake or real command
// opened hang.fifo, or check answered its first line.
func runContract(t *testing.T, dir string, c contractCase, env ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("cassette", c.args...)
	cmd.Dir, cmd.Env = dir, append(contractEnv(dir), env...)
	cmd.SysProcAttr = procgroup.Attr()
	var out, errw bytes.Buffer
	cmd.Stderr = &errw
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = procgroup.Kill(cmd.Process.Pid) })
	stdoutDone := make(chan struct{})
	first := make(chan struct{})
	go func() {
		defer close(stdoutDone)
		r := bufio.NewReader(stdoutPipe)
		line, err := r.ReadString('\n')
		out.WriteString(line)
		close(first)
		if err == nil {
			_, _ = io.Copy(&out, r)
		}
	}()
	_, _ = io.WriteString(stdin, c.stdin)
	if c.command != "check" || !c.sigint {
		stdin.Close() // only check, interrupted, reads on while the harness is there
	}
	done := make(chan error, 1)
	go func() { <-stdoutDone; done <- cmd.Wait() }()
	if c.sigint {
		ready := first // check: its answer to the first line (it reads on)
		release := func() { unblockFIFO(filepath.Join(dir, "hang.fifo")) }
		switch {
		case c.feed != "":
			ready, release = feedFIFO(filepath.Join(dir, c.feed))
			defer release() // the reader sees its input end once the run did
		case c.command != "check":
			ready = readyFIFO(filepath.Join(dir, "hang.fifo"))
		}
		select {
		case <-ready:
		case <-time.After(3 * time.Minute):
			release()
			t.Fatalf("cassette %s never got ready to be interrupted:\n%s\n%s", strings.Join(c.args, " "), out.String(), errw.String())
		case <-done:
			release()
			t.Fatalf("cassette %s ended before it was ready to be interrupted (exit %d):\n%s\n%s", strings.Join(c.args, " "), cmd.ProcessState.ExitCode(), out.String(), errw.String())
		}
		interruptGroup(t, cmd.Process.Pid)
	}
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("cassette %s did not end:\n%s\n%s", strings.Join(c.args, " "), out.String(), errw.String())
	}
	stdin.Close()
	return cmd.ProcessState.ExitCode(), out.String(), errw.String()
}

// readyFIFO is closed once a process has written to the FIFO and closed
// it (opening it blocks until then: readiness, not a sleep).
func readyFIFO(path string) chan struct{} {
	ch := make(chan struct{})
	go func() { _, _ = os.ReadFile(path); close(ch) }()
	return ch
}

// feedFIFO opens the FIFO for writing: ready is closed once a process
// opened it to read (the open blocks until then) and now waits for its
// content. release closes it (the reader sees its end), or ends an open
// that nobody will meet.
func feedFIFO(path string) (ready chan struct{}, release func()) {
	ready = make(chan struct{})
	opened := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(path, os.O_WRONLY, 0)
		opened <- f
		close(ready)
	}()
	var once sync.Once
	return ready, func() {
		once.Do(func() {
			if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer r.Close() // meets an open still waiting
			}
			if f := <-opened; f != nil {
				f.Close()
			}
		})
	}
}

// unblockFIFO ends a readyFIFO that nobody will write to.
func unblockFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// nextStep is the next step the summary.json in dir gives (read by the
// report package's own parser).
func nextStep(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := report.ParseSummary(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return sum.NextStep
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendFile adds text to the file; under adapters: when merge is set
// (the file's own "adapters:" line is then replaced by text's first line).
func appendFile(t *testing.T, path, text string, merge bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if merge {
		head, rest, _ := strings.Cut(text, "\n")
		s = strings.Replace(s, head+"\n", head+"\n"+rest, 1)
	} else {
		s += text
	}
	writeFile(t, path, s)
}
