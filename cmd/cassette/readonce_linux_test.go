package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/report"
)

// driftingProject writes a project whose one CLI cassette drifts against
// its fake (the greet example of the README) and returns its config and
// cassette paths.
func driftingProject(t *testing.T) (cfg, cassette string) {
	t.Helper()
	dir := t.TempDir()
	cfg = filepath.Join(dir, "cassette.yaml")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cfg, "version: 1\nadapters:\n  greet:\n    kind: cli\n    real: {command: [sh, greet.sh]}\n    fake: {command: [sh, greet.sh]}\n")
	write(filepath.Join(dir, "greet.sh"), "echo \"Hallo, $1!\"\n")
	data, err := cassettes.Marshal(&cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "greet", Scenario: "ada", Kind: cfgschema.KindCLI,
		Input: &cassettes.Input{Command: "sh", Args: []string{"greet.sh", "Ada"}}, Output: &cassettes.Output{Stdout: "Hello, Ada!\n"}})
	if err != nil {
		t.Fatal(err)
	}
	cassette = filepath.Join(dir, "cassettes", "greet", "ada.yaml")
	write(cassette, string(data))
	return cfg, cassette
}

// opens counts the times any process opens the file at path while fn runs,
// as the kernel reports them (inotify). Each open is followed by its close,
// so that no two reported events are alike and none is coalesced.
func opens(t *testing.T, path string, fn func()) int {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN|unix.IN_CLOSE); err != nil {
		t.Fatal(err)
	}
	fn()
	n := 0
	buf := make([]byte, 64<<10)
	for {
		m, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			if mask&unix.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflow: the count is unknown")
			}
			if mask&unix.IN_OPEN != 0 {
				n++
			}
			off += unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(buf[off+12:]))
		}
	}
}

// verifyDrift runs `cassette verify --bundle-dir` on the drifting project
// and returns its report directory and its bundle's directory.
func verifyDrift(t *testing.T, cfg string, golden bool) (reports, bundle string) {
	t.Helper()
	out := t.TempDir()
	reports, bundles := filepath.Join(out, "reports"), filepath.Join(out, "bundles")
	args := []string{"--config", cfg, "verify", "--report-dir", reports, "--bundle-dir", bundles}
	if golden {
		args = append(args, "--golden")
	}
	var stdout, stderr bytes.Buffer
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("verify exited %d, want 1 (drift)\n%s%s", code, stdout.String(), stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(bundles, "*", "*", "bundle.json"))
	if len(found) != 1 {
		t.Fatalf("want one bundle, found %v", found)
	}
	return reports, filepath.Dir(found[0])
}

// A drifting verify with --bundle-dir, run from its project's directory,
// reads its cassette once: the loader's read. The reports' inventory, the
// bundle's copy and report.html's recorded side all come from what was
// loaded (it opened the file 7 times).
func TestVerifyReadsEachCassetteOnce(t *testing.T) {
	cfg, cassette := driftingProject(t)
	t.Chdir(filepath.Dir(cfg))
	n := opens(t, cassette, func() { verifyDrift(t, cfg, true) })
	if n != 1 {
		t.Errorf("verify --bundle-dir opened the drifting cassette %d times, want 1 (the load)", n)
	}
}

// Each report file is rendered once: the bundle's reports/ are the bytes
// written to the report directory, even where a render is not
// reproducible (log.jsonl's timestamps outside golden mode), and
// bundle.json's inventory says so.
func TestVerifyRendersEachReportOnce(t *testing.T) {
	cfg, _ := driftingProject(t)
	reports, bundle := verifyDrift(t, cfg, false)
	var manifest struct {
		Files []struct {
			Path, SHA256 string
		} `json:"files"`
	}
	data, err := os.ReadFile(filepath.Join(bundle, "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	inventory := map[string]string{}
	for _, f := range manifest.Files {
		inventory[f.Path] = f.SHA256
	}
	for _, name := range []string{report.FileJUnit, report.FileSARIF, report.FileReport, report.FileLog, report.FileRun, report.FileHTML} {
		written, err := os.ReadFile(filepath.Join(reports, name))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := inventory["reports/"+name], report.NewInventoryItem(name, written).SHA256; got != want {
			t.Errorf("bundle.json lists reports/%s with sha256 %s, the report directory's is %s: rendered twice", name, got, want)
		}
	}
}
