package proxy

import (
	"bytes"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// childEnv is a minimal environment for a child process: no proxy or CA
// variables of the test machine leak in, and git reads no user config.
func childEnv(t *testing.T, extra ...string) []string {
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}
	return append(env, extra...)
}

func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func TestCurlRecordReplay(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed (apt-get install -y curl)")
	}
	for _, proto := range []string{"--http1.1", "--http2"} {
		t.Run(proto, func(t *testing.T) {
			up := newUpstream(t, http.HandlerFunc(upstreamHandler), proto == "--http2")
			ca := testCA(t)
			rec := startProxy(t, Options{Mode: ModeRecord, CA: ca, Transport: trusting(up)})
			env := childEnv(t, ca.ChildEnv(rec.URL())...) // curl takes the proxy and CA from the environment
			curl := func(path string, args ...string) []byte {
				return run(t, t.TempDir(), env, "curl", append([]string{"-sS", "--fail", proto, up.URL + path}, args...)...)
			}
			wantBin := curl("/bin")
			wantPost := curl("/echo", "-H", "Content-Type: application/json", "--data-binary", `{"a":1}`)
			if !bytes.Equal(wantBin, binaryBody) || string(wantPost) != `{"a":1}` {
				t.Fatalf("through the recording proxy: %d bytes, %q", len(wantBin), wantPost)
			}
			its := flushed(t, rec)
			if len(its) != 2 {
				t.Fatalf("recorded %d interactions", len(its))
			}
			if proto == "--http2" && its[0].Request.Proto != "HTTP/2.0" {
				t.Errorf("curl spoke %s to the MITM", its[0].Request.Proto)
			}
			up.Close()
			rep := startProxy(t, Options{Mode: ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{{Interactions: its}}})
			env = childEnv(t, ca.ChildEnv(rep.URL())...)
			if got := curl("/bin"); !bytes.Equal(got, wantBin) {
				t.Error("replayed binary body differs")
			}
			if got := curl("/echo", "-H", "Content-Type: application/json", "--data-binary", `{"a":1}`); !bytes.Equal(got, wantPost) {
				t.Errorf("replayed POST %q", got)
			}
		})
	}
}

// TestGitCloneRecordReplay clones over HTTPS (git's smart HTTP, served by
// git http-backend behind net/http/cgi on a local TLS server) through the
// recording proxy, stops the server, and clones again from the cassette.
func TestGitCloneRecordReplay(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		missingTool(t, "git not installed")
	}
	backend := strings.TrimSpace(string(run(t, "", childEnv(t), gitBin, "--exec-path"))) + "/git-http-backend"
	if _, err := os.Stat(backend); err != nil {
		missingTool(t, "git-http-backend not found")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	env := childEnv(t, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	run(t, root, env, gitBin, "init", "-q", "-b", "main", work)
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("hello from a recorded clone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "blob.bin"), binaryBody, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, work, env, gitBin, "add", ".")
	run(t, work, env, gitBin, "commit", "-q", "-m", "first")
	run(t, root, env, gitBin, "clone", "-q", "--bare", work, filepath.Join(root, "repo.git"))
	head := strings.TrimSpace(string(run(t, work, env, gitBin, "rev-parse", "HEAD")))

	up := newUpstream(t, &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}, false)
	ca := testCA(t)
	clone := func(p *Proxy, dst string) {
		t.Helper()
		run(t, root, childEnv(t, ca.ChildEnv(p.URL())...), gitBin, "clone", "-q", up.URL+"/repo.git", dst)
		if got := strings.TrimSpace(string(run(t, dst, env, gitBin, "rev-parse", "HEAD"))); got != head {
			t.Fatalf("cloned HEAD %s, want %s", got, head)
		}
		if b, _ := os.ReadFile(filepath.Join(dst, "blob.bin")); !bytes.Equal(b, binaryBody) {
			t.Fatal("cloned blob.bin differs")
		}
	}
	rec := startProxy(t, Options{Mode: ModeRecord, CA: ca, Transport: trusting(up)})
	clone(rec, filepath.Join(root, "first"))
	its := flushed(t, rec)
	if len(its) < 2 {
		t.Fatalf("recorded %d interactions for a clone", len(its))
	}
	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	clone(rep, filepath.Join(root, "second"))
	if m := rep.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}

// missingTool skips a test whose real client is not installed, except in CI
// (CI=true), where .ci/run installs it: there a missing tool is a failure,
// not a silent skip.
func missingTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s: CI must install it (.ci/run)", why)
	}
	t.Skip(why)
}
