package demo_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestContainerImage builds the release image (Containerfile: FROM scratch
// and the static binary) with podman, offline (scratch is not pulled), and
// runs `cassette version` and `cassette verify` on the demo's cassettes in
// it, without a network. The binary is built as .goreleaser.yaml builds
// it (CGO_ENABLED=0, -trimpath); the demo's fakes are built statically
// beside the cassettes, since the image holds no Go to build them.
//
// Where podman's OCI runtime cannot start a container (crun refuses in
// this repository's sandboxed machines: setrlimit and cgroup v1 hybrid
// mode), the image is still built, exported with `podman save`, and its
// entrypoint run from the exported root file system under chroot (with the
// /dev/null a runtime provides, in the host's network namespace): the same
// files, without the runtime's isolation. The log says which ran.
func TestContainerImage(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil {
		if os.Getenv("CASSETTE_REQUIRE_PODMAN") != "" {
			t.Fatal("podman is not installed (CASSETTE_REQUIRE_PODMAN is set: .ci/run installs it)")
		}
		t.Skip("podman is not installed: the release image is not built (apt-get install podman)")
	}
	ctx := t.TempDir()
	static(t, filepath.Join(ctx, "cassette"), "", "github.com/cassette-dev/cassette/cmd/cassette", "-X main.version=v0.0.0-container-test")
	containerfile := filepath.Join("..", "..", "Containerfile")
	tag := "localhost/cassette-container-test:" + filepath.Base(ctx)
	run(t, podman, "build", "--pull=never", "-q", "-t", tag, "-f", containerfile, ctx)
	t.Cleanup(func() { exec.Command(podman, "rmi", "-f", tag).Run() })

	demo := newExample(t).Dir
	static(t, filepath.Join(demo, ".cassette", "bin", "petstore"), demo, "./fakes/petstore", "")
	static(t, filepath.Join(demo, ".cassette", "bin", "greet"), demo, "./fakes/greet", "")
	config := filepath.Join(demo, "cassette.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// The fakes are built: the image has no go to run fake.build with.
	noBuild := regexp.MustCompile(`(?m)^\s+build: \[go, build.*\n`).ReplaceAll(data, nil)
	if bytes.Equal(noBuild, data) {
		t.Fatal("the demo's cassette.yaml has no fake.build line to drop")
	}
	if err := os.WriteFile(config, noBuild, 0o644); err != nil {
		t.Fatal(err)
	}

	runImage := containerRunner(t, podman, tag, demo)
	if out := runImage("version"); !strings.Contains(out, "v0.0.0-container-test") {
		t.Errorf("cassette version in the image printed %q", out)
	}
	out := runImage("verify", "--report-dir", ".cassette/reports")
	if !strings.Contains(out, "7 passed, 0 failed") {
		t.Errorf("cassette verify in the image:\n%s", out)
	}
}

// runtimeFlags are the ways podman is asked to start the image, in
// order: as it is configured, then with the OCI runtime runc and the
// process limits lowered to what the host grants. In this repository's
// sandboxed machines crun refuses both the limits podman raises
// (setrlimit RLIMIT_NOFILE/NPROC: not permitted) and the cgroup v1 hybrid
// mount; runc with lowered limits starts the container.
var runtimeFlags = [][]string{
	nil,
	{"--runtime", "runc", "run", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"},
}

// containerRunner returns a function that runs the image's entrypoint
// with args, the demo at /demo as its working directory, and no network.
func containerRunner(t *testing.T, podman, tag, demo string) func(args ...string) string {
	var refusals []string
	for _, flags := range runtimeFlags {
		global, runFlags := []string{}, []string{"run"}
		if len(flags) > 0 {
			i := slices.Index(flags, "run")
			global, runFlags = flags[:i], flags[i:]
		}
		base := append(append(slices.Clone(global), runFlags...), "--rm", "--pull=never", "--network=none")
		probe := exec.Command(podman, append(slices.Clone(base), tag, "version")...)
		out, err := probe.CombinedOutput()
		if err == nil {
			t.Logf("podman %s starts the image", strings.Join(base, " "))
			return func(args ...string) string {
				return run(t, podman, append(append(slices.Clone(base), "-v", demo+":/demo", "-w", "/demo", tag), args...)...)
			}
		}
		if !strings.Contains(string(out), "OCI") {
			t.Fatalf("podman %s: %v\n%s", strings.Join(base, " "), err, out)
		}
		refusals = append(refusals, strings.TrimSpace(string(out)))
	}
	if os.Getenv("CASSETTE_REQUIRE_PODMAN_RUN") != "" {
		t.Fatalf("podman's OCI runtime refuses to start a container (CASSETTE_REQUIRE_PODMAN_RUN is set): %s", strings.Join(refusals, "; "))
	}
	t.Logf("podman's OCI runtime refuses to start a container here (%s): running the image's root file system under chroot", strings.Join(refusals, "; "))
	return chrootRunner(t, podman, tag, demo)
}

// exportImage writes the image's file system into dir (podman save, then
// the layers of the archive, in order).
func exportImage(t *testing.T, podman, tag, dir string) {
	archive := filepath.Join(t.TempDir(), "image.tar")
	run(t, podman, "save", "--format", "docker-archive", "-o", archive, tag)
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	layers := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(h.Name, ".tar") || strings.HasSuffix(h.Name, "/layer.tar") {
			untar(t, tr, dir)
			layers++
		}
	}
	if layers == 0 {
		t.Fatal("the saved image has no layer")
	}
}

func untar(t *testing.T, r io.Reader, dir string) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(out, tr); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
	}
}

// static builds a static binary of pkg (in dir, when given) as the
// release does: CGO_ENABLED=0, -trimpath.
func static(t *testing.T, out, dir, pkg, ldflags string) {
	t.Helper()
	args := []string{"build", "-trimpath", "-o", out}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
