package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// Every `next:` line the scripts make cassette print is run, as printed,
// in a shell: a next step that is prose, holds `...` or a `# comment`, or
// names an adapter the project does not have fails here. The check runs
// in the `cassette` program of the scripts (TestMain): after each command
// that printed a next step, the script's work directory is copied as it
// is at that moment, and the step runs in the copy, with the same
// environment, while the script's servers still answer. The script itself
// never sees the copy. Its verdicts are read when the script ends.

// nextCheckEnv names the directory (one per script) where the cassette
// program writes one JSON verdict per next step it ran.
const nextCheckEnv = "CASSETTE_TEST_NEXT_CHECK"

// nextVerdict is the outcome of running one printed next step.
type nextVerdict struct {
	Args   []string `json:"args"`   // the command that printed it
	Exit   int      `json:"exit"`   // and its exit code
	Reason string   `json:"reason"` // and its reason code, "" when it printed none
	Next   string   `json:"next"`   // the step, as printed
	Code   int      `json:"code"`   // the step's exit code; -1 when it was still running at the deadline
	Got    string   `json:"got"`    // the reason code the step printed, if any
	Output string   `json:"output"` // what the step printed (the start of it)
	Took   string   `json:"took"`   // how long the step ran
	// Export is true when the command that printed it said which
	// credential variables to export before the step (they are not set).
	Export bool `json:"export"`
}

var (
	nextRe   = regexp.MustCompile(`(?m)^next: (.*)$`)
	reasonRe = regexp.MustCompile(`error\[(E_[A-Z0-9_]+)\]`)
	exportRe = regexp.MustCompile(`\(export [A-Z_][A-Z0-9_]*(, [A-Z_][A-Z0-9_]*)* first: `)
)

// bad says why the verdict is a step that does not run as printed, or "".
// A step may fail as the command before it did (the same reason again:
// the user has not fixed it yet) or for any other reason of exit 1 or 3
// (a drift, a service still down); it may not be something a shell cannot
// run (126, 127) nor a user error of another kind (exit 2), which is what
// `...`, prose and names the project lacks turn into.
func (v nextVerdict) bad() string {
	switch {
	case v.Code == 126 || v.Code == 127:
		return "the shell cannot run it"
	case v.Code == 2 && v.Got == "E_MISSING_CONFIG" && v.Export:
		// the credentials the message said to export first: the reason
		// it was printed with
	case v.Code == 2 && (v.Got == "" || v.Got != v.Reason):
		return "it is itself a usage or config error (" + v.Got + ")"
	case strings.Contains(strings.ReplaceAll(v.Next, "./...", ""), "...") || strings.Contains(v.Next, "#"):
		return "it holds `...` or a `# comment`"
	}
	return ""
}

// cassetteProgram is the `cassette` command of the scripts: Main, and when
// the script asked for it, the check of the next step Main printed.
func cassetteProgram() int {
	dir := os.Getenv(nextCheckEnv)
	if dir == "" {
		return Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}
	var out, errw bytes.Buffer
	code := Main(os.Args[1:], os.Stdin, io.MultiWriter(os.Stdout, &out), io.MultiWriter(os.Stderr, &errw))
	m := nextRe.FindStringSubmatch(errw.String())
	if m == nil {
		m = nextRe.FindStringSubmatch(out.String())
	}
	if m != nil && !checkedAlready(dir, m[1]) {
		v := nextVerdict{Args: os.Args[1:], Exit: code, Next: m[1], Export: exportRe.MatchString(errw.String())}
		if r := reasonRe.FindStringSubmatch(errw.String()); r != nil {
			v.Reason = r[1]
		}
		runNextInCopy(dir, &v)
		writeVerdict(dir, v)
	}
	return code
}

// runNextInCopy copies $WORK into dir and runs v.Next there, in the
// directory that corresponds to this process's own, with this process's
// environment (paths under $WORK moved to the copy).
func runNextInCopy(dir string, v *nextVerdict) {
	work := os.Getenv("WORK")
	copyRoot, err := os.MkdirTemp(dir, "work")
	if err == nil {
		err = copyTree(work, copyRoot)
	}
	cwd, _ := os.Getwd()
	rel, relErr := filepath.Rel(work, cwd)
	if err != nil || relErr != nil || strings.HasPrefix(rel, "..") {
		v.Code, v.Output = 126, "cannot copy the work directory: "+errors.Join(err, relErr).Error()
		return
	}
	defer os.RemoveAll(copyRoot)
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, nextCheckEnv+"=") {
			continue
		}
		env = append(env, strings.ReplaceAll(kv, work, copyRoot))
	}
	// A step that starts a server (a proxy, a scheduled refresh) runs
	// until it is stopped: one that says it listens has started, and is
	// stopped there; one still running at the deadline has started too.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", v.Next)
	cmd.Dir = filepath.Join(copyRoot, rel)
	cmd.Env = env
	cmd.SysProcAttr = procgroup.Attr()
	cmd.Cancel = procgroup.KillFunc(cmd)
	cmd.WaitDelay = 5 * time.Second
	out := &startedWriter{started: cancel}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	output := out.bytes()
	v.Took = time.Since(start).Round(10 * time.Millisecond).String()
	v.Code = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		v.Code = -1
	} else if err != nil && cmd.ProcessState == nil {
		v.Code = 126
	}
	if r := reasonRe.FindSubmatch(output); r != nil {
		v.Got = string(r[1])
	}
	v.Output = string(output[:min(len(output), 2000)])
}

// startedWriter keeps a step's output and calls started once the step
// says it listens (a server is up: the step ran as printed).
type startedWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	started func()
}

func (w *startedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte(", listening on ")) {
		w.started()
	}
	return len(p), nil
}

func (w *startedWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// copyTree copies the regular files, directories, symlinks and FIFOs of
// src into dst (which exists), keeping modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case rel == ".":
			return nil
		case mode.IsDir():
			return os.Mkdir(to, mode.Perm()|0o700)
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(strings.Replace(target, src, dst, 1), to)
		case mode&fs.ModeNamedPipe != 0:
			return copyFIFO(to, mode.Perm())
		case mode.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, mode.Perm())
		}
		return nil // sockets, devices: nothing a next step reads
	})
}

// checkedAlready reports whether this script already ran next, as printed,
// and found that it runs (a fault script prints the same step after each
// fault it injects; once is enough).
func checkedAlready(dir, next string) bool {
	data, _ := os.ReadFile(filepath.Join(dir, "verdicts.jsonl"))
	for _, line := range bytes.Split(data, []byte("\n")) {
		var v nextVerdict
		if json.Unmarshal(line, &v) == nil && v.Next == next && v.bad() == "" {
			return true
		}
	}
	return false
}

func writeVerdict(dir string, v nextVerdict) {
	data, _ := json.Marshal(v)
	f, err := os.OpenFile(filepath.Join(dir, "verdicts.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(data, '\n'))
}

// checkNextSteps arms the check for one script: a fresh verdict
// directory, and at the script's end an error for each step that did not
// run as printed.
func checkNextSteps(env *testscript.Env) error {
	dir, err := os.MkdirTemp("", "cassette-next-")
	if err != nil {
		return err
	}
	env.Setenv(nextCheckEnv, dir)
	env.Defer(func() {
		defer os.RemoveAll(dir)
		tb, ok := env.T().(testing.TB)
		if !ok {
			return
		}
		for _, v := range readVerdicts(tb, dir) {
			tb.Logf("next step of `cassette %s`: %s → exit %d %s in %s", strings.Join(v.Args, " "), v.Next, v.Code, v.Got, v.Took)
			if why := v.bad(); why != "" {
				tb.Errorf("`cassette %s` (exit %d, %s) printed\n  next: %s\nwhich does not run as printed: %s; it exited %d:\n%s",
					strings.Join(v.Args, " "), v.Exit, v.Reason, v.Next, why, v.Code, v.Output)
			}
		}
	})
	return nil
}

func readVerdicts(tb testing.TB, dir string) []nextVerdict {
	data, err := os.ReadFile(filepath.Join(dir, "verdicts.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		tb.Errorf("next-step verdicts: %v", err)
	}
	var out []nextVerdict
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var v nextVerdict
		if err := json.Unmarshal(line, &v); err != nil {
			tb.Errorf("next-step verdict %q: %v", line, err)
			continue
		}
		out = append(out, v)
	}
	return out
}
