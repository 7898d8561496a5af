package docker_test

// End-to-end tests of the docker example, run as a user would run it: the
// real cassette binary (built once), the real docker CLI (Debian's
// docker.io) talking to a real Docker-compatible engine (podman's Docker API
// service, with storage of its own in a temporary directory) through
// cassette's reverse proxy, and the fake docker built by verify from
// fakes/docker. Containers are created, never run: the OCI runtime cannot
// run one on every machine this is tested on (crun: setrlimit refused).

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-docker-e2e-", &cassetteBin)) }

var scenarios = []string{"create", "events", "image-inspect", "image-missing", "images", "import", "info",
	"network-ls", "ps-all", "version", "volume-create", "volume-ls"}

// newExample copies the example's committed files into a temporary
// directory, with an environment where `docker` is Debian's docker.io CLI
// (the one the cassettes were recorded with) and no docker variables of the
// user's.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "fakes", "cassettes"},
		Module:   "example.com/dockerexample",
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "DOCKER_") || strings.HasPrefix(name, "CASSETTE") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
	if _, err := os.Stat("/usr/bin/docker"); err == nil { // Debian's, ahead of any other docker in PATH
		bin := t.TempDir()
		if err := os.Symlink("/usr/bin/docker", filepath.Join(bin, "docker")); err != nil {
			t.Fatal(err)
		}
		for i, kv := range e.Env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				e.Env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
			}
		}
	}
	return e
}

// dockerCLI is the docker CLI the example's commands find first in PATH
// (see newExample), for the test's own calls.
func dockerCLI(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/docker"); err == nil {
		return "/usr/bin/docker"
	}
	p, err := exec.LookPath("docker")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// needEngine skips the test when podman or the docker CLI is missing,
// except in CI, where .ci/run installs them and their absence is a failure.
func needEngine(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"podman", "docker", "curl", "tar", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (CI is set): .ci/run installs it with apt-get install podman docker.io", tool)
			}
			t.Skipf("%s is not installed: sudo apt-get install -y podman docker.io", tool)
		}
	}
}

// startEngine starts podman's Docker API service with storage of its own,
// on a unix socket the test listens on and hands over (systemd socket
// activation): the socket accepts connections before podman is up, so
// nothing polls. t's cleanup stops it. It returns the socket's URL.
func startEngine(t *testing.T, e *e2e.Example) string {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "podman.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ul := ln.(*net.UnixListener)
	f, err := ul.File()
	if err != nil {
		t.Fatal(err)
	}
	ul.SetUnlinkOnClose(false)
	ul.Close() // f keeps the socket open for podman
	cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ exec podman --root "$1/root" --runroot "$1/run" --tmpdir "$1/tmp" `+
		`--storage-driver vfs --events-backend file --cgroup-manager cgroupfs system service --time=0`, "sh", dir)
	cmd.Env = append(append([]string(nil), e.Env...), "LISTEN_FDS=1")
	cmd.ExtraFiles = []*os.File{f}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil && t.Failed() {
			t.Logf("podman: %v\n%s", err, log.String())
		}
	})
	return "unix://" + sock
}

// TestCommittedCassettesVerify is what CI checks on every change, with or
// without an engine: the committed cassettes are valid and the fake answers
// them.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "docker", scenarios)
}

// TestRecordThenVerify re-records every cassette with record.sh from the
// real docker CLI against a fresh engine it starts (new ids, new times),
// verifies the unchanged fake against them, then replays the recorded HTTP
// to the real docker CLI with the engine gone: it prints what it printed
// when the engine answered.
func TestRecordThenVerify(t *testing.T) {
	needEngine(t)
	e := newExample(t)
	old := e2e.ReadFile(t, e.Path("cassettes/docker/import.yaml"))
	if err := os.RemoveAll(e.Path("cassettes/docker")); err != nil {
		t.Fatal(err)
	}
	// A newer docker CLI first in PATH (Docker 28 in /usr/local/bin, as on
	// some machines): record.sh records with the one the cassettes were
	// recorded with, found by its version, never with this one.
	decoy := t.TempDir()
	e2e.WriteFile(t, filepath.Join(decoy, "docker"), "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'Docker version 28.0.4, build b8034c0'; exit 0; }\necho 'the decoy docker ran' >&2; exit 99\n")
	if err := os.Chmod(filepath.Join(decoy, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	var path string
	for _, kv := range e.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = "PATH=" + decoy + string(os.PathListSeparator) + v
		}
	}
	_, errOut := e.MustBoth([]string{path}, "./record.sh")
	if !strings.Contains(errOut, "Docker version 20.10.") || strings.Contains(errOut, "decoy") {
		t.Errorf("record.sh did not pick the docker CLI of the cassettes' version:\n%s", errOut)
	}
	for _, s := range scenarios { // record's messages go to stderr
		if !strings.Contains(errOut, "recorded cassettes/docker/"+s+".yaml") {
			t.Errorf("record.sh did not record %s:\n%s", s, errOut)
		}
	}
	imported := e2e.ReadFile(t, e.Path("cassettes/docker/import.yaml"))
	if imported == old || !strings.Contains(imported, "url: http://localhost/v1.41/images/create?fromSrc=-") || !strings.Contains(imported, "mutating: true") {
		t.Errorf("import.yaml should be new, marked mutating, and hold the CLI's HTTP to the engine:\n%s", imported)
	}
	events := e2e.ReadFile(t, e.Path("cassettes/docker/events.yaml"))
	if !strings.Contains(events, "url: http://localhost/v1.41/events?") || !strings.Contains(events, `"Action":"create"`) {
		t.Errorf("events.yaml should hold the event stream and its HTTP:\n%s", events)
	}
	e.Must(nil, cassetteBin, "validate")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "12 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}

	// The engine is gone (record.sh stopped it): replay the recorded HTTP.
	// (Not events: the CLI turns --until=-2s into a new absolute time, a
	// new query, on every run; not ps or images: they print ages, "3
	// seconds ago", relative to now.)
	for _, s := range []string{"version", "image-inspect", "image-missing", "volume-ls"} {
		t.Run("replay "+s+" to the docker CLI", func(t *testing.T) {
			px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--upstream", "unix:///nowhere/podman.sock", "--cassette", "cassettes/docker/"+s+".yaml")
			var c struct {
				Input  struct{ Args []string }
				Output struct {
					Stdout, Stderr string
					ExitCode       int `yaml:"exit_code"`
				}
			}
			e2e.ReadYAML(t, e.Path("cassettes/docker/"+s+".yaml"), &c)
			env := []string{"DOCKER_HOST=tcp://" + strings.TrimPrefix(px, "http://"), "DOCKER_CONFIG=" + t.TempDir()}
			stdout, stderr, code := e.Run(env, dockerCLI(t), c.Input.Args...)
			if stdout != c.Output.Stdout || stderr != c.Output.Stderr || code != c.Output.ExitCode {
				t.Errorf("docker %s against the replayed engine:\nexit %d, stdout %q, stderr %q\nrecorded: exit %d, stdout %q, stderr %q",
					strings.Join(c.Input.Args, " "), code, stdout, stderr, c.Output.ExitCode, c.Output.Stdout, c.Output.Stderr)
			}
		})
	}
}

// TestFakeDriftFails makes the fake log the wrong action for the volume it
// created: the event stream is compared record by record, and the drift
// names the record, the JSON path and the cassette line.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/docker/engine.go", `Type: "volume", Action: "create"`, `Type: "volume", Action: "created"`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL  docker/events", `value drift at output.stdout $[3].Action: value changed (want "create", got "created")`,
		"(cassettes/docker/events.yaml:", "PASS  docker/volume-ls", "11 passed, 1 failed", "next: cassette verify --case docker/events"} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	if sarif := e2e.ReadFile(t, e.Path(".cassette/reports/sarif.json")); !strings.Contains(sarif, "cassettes/docker/events.yaml") || !strings.Contains(sarif, "$[3].Action") {
		t.Errorf("sarif.json does not locate the drift:\n%s", sarif)
	}
}

// TestRefreshLoop is the whole loop against a local bare remote, on an
// engine the test runs: record and commit the cassettes, verify passes;
// the real side changes (someone creates a volume); `cassette refresh
// --once` re-records the read-only scenarios (the --mutating ones are
// skipped), pushes a refresh branch with the drifting cassettes and writes
// the fake-drift issue; on that branch verify fails against the unchanged
// fake; teaching the fake the new volume makes it pass.
func TestRefreshLoop(t *testing.T) {
	needEngine(t)
	e := newExample(t)
	socket := startEngine(t, e)
	e.Patch("cassette.yaml", "base_url: unix:///run/podman/podman.sock", "base_url: "+socket)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)
	e.Must([]string{"DOCKER_SOCKET=" + socket}, "./record.sh")
	e.Must(nil, "git", append(gitID, "add", ".")...)
	e.Must(nil, "git", append(gitID, "commit", "-q", "-m", "docker example: cassettes")...)
	e.Must(nil, "git", "push", "-q", "origin", "main")
	e.Must(nil, cassetteBin, "verify")

	// The real side changes.
	e.Must([]string{"DOCKER_HOST=" + socket, "DOCKER_CONFIG=" + t.TempDir()}, dockerCLI(t), "volume", "create", "cache")

	changed := e.RefreshDrift(cassetteBin, remote, "docker", nil)
	if want := []string{"cassettes/docker/events.yaml", "cassettes/docker/volume-ls.yaml"}; strings.Join(changed, " ") != strings.Join(want, " ") {
		t.Log(e.Must(nil, "git", "diff", "main", "FETCH_HEAD", "--", "cassettes/docker/info.yaml"))
		t.Errorf("the refresh branch changes %v, want %v (the mutating scenarios are not re-run, the fake is not touched)", changed, want)
	}
	issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/docker.issue.md"))
	if !strings.Contains(issue, "volume-ls") || !strings.Contains(issue, "events") {
		t.Errorf("the fake-drift issue does not name the drifting cases:\n%s", issue)
	}

	// On the refresh branch, the unchanged fake fails, record by record.
	e.Must(nil, "git", "checkout", "-q", "FETCH_HEAD")
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  docker/volume-ls") || !strings.Contains(out, "FAIL  docker/events") ||
		!strings.Contains(out, "stream drift at output.stdout $[4]") || !strings.Contains(out, `"name":"cache"`) {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with volume-ls and events drifting (record 4 added)\n%s\n%s", code, out, errOut)
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}

	// Teach the fake the new volume.
	e.Patch("fakes/docker/engine.go", `var volumes = []string{volumeName}`, `var volumes = []string{volumeName, "cache"}`)
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "12 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// TestLearnFromTheRealEngine is issue 39's done-when on podman's Docker
// API: with every normalizer removed from a copy of the example, the
// engine's state is built by record.sh (its recordings are put back to the
// committed ones, which another engine answered: other ids, other times),
// `cassette learn --apply` runs each scenario that only reads again (the
// mutating ones are not re-run), writes what it learned, and verify is
// green against the example's fake with no more normalizers than the
// hand-written ones plus one.
func TestLearnFromTheRealEngine(t *testing.T) {
	needEngine(t)
	e := newExample(t)
	hand := e.ForgetNormalizers()
	socket := startEngine(t, e)
	e.Patch("cassette.yaml", "base_url: unix:///run/podman/podman.sock", "base_url: "+socket)
	committed := filepath.Join(t.TempDir(), "cassettes")
	e2e.CopyTree(t, e.Path("cassettes"), committed)
	e.Must([]string{"DOCKER_SOCKET=" + socket}, "./record.sh")
	if err := os.RemoveAll(e.Path("cassettes")); err != nil {
		t.Fatal(err)
	}
	e2e.CopyTree(t, committed, e.Path("cassettes"))

	out := e.LearnApply(cassetteBin, "docker", hand["docker"])
	if vout, verr, code := e.Run(nil, cassetteBin, "verify"); code != 0 || !strings.Contains(vout, "12 passed, 0 failed") {
		t.Fatalf("verify after learn --apply: exit %d\n%s\n%s\nlearn said:\n%s", code, vout, verr, out)
	}
}
