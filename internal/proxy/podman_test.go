package proxy

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// ociStore is a running Debian docker-registry (distribution/registry v2)
// on a loopback port, storing blobs under store.
type ociStore struct {
	addr, store string
	stop        func()
}

// startRegistry runs `docker-registry serve` with a config of its own (a
// temp storage directory, 127.0.0.1:0) and waits until it logs the address
// it listens on; the packaged systemd service is never used.
func startRegistry(t *testing.T) *ociStore {
	t.Helper()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	config := "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: " + store +
		"\nhttp:\n  addr: 127.0.0.1:0\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("docker-registry", "serve", filepath.Join(dir, "config.yml"))
	cmd.Env = childEnv(t)
	logs, w, err := os.Pipe() // its log (stderr): read to its end, which is the process's
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(func() { stop(); logs.Close() })
	lines, seen := bufio.NewScanner(logs), []string{}
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if _, rest, ok := strings.Cut(lines.Text(), `msg="listening on `); ok {
			addr, _, _ := strings.Cut(rest, `"`)
			go io.Copy(io.Discard, logs)
			return &ociStore{addr: addr, store: store, stop: stop}
		}
	}
	t.Fatalf("docker-registry exited before it listened:\n%s", strings.Join(seen, "\n"))
	return nil
}

// blob is the file the registry stored for digest.
func (r *ociStore) blob(t *testing.T, digest string) []byte {
	t.Helper()
	hexd := strings.TrimPrefix(digest, "sha256:")
	b, err := os.ReadFile(filepath.Join(r.store, "docker/registry/v2/blobs/sha256", hexd[:2], hexd, "data"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tagged is the digest of the manifest the registry holds for repo:tag.
func (r *ociStore) tagged(t *testing.T, repo, tag string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.store, "docker/registry/v2/repositories", repo, "_manifests/tags", tag, "current/link"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// podmanStore runs podman against an image store of its own (vfs, no
// cgroups, no events: nothing is run, only images moved).
func podmanStore(t *testing.T) func(args ...string) string {
	dir, err := os.MkdirTemp("", "pm") // podman wants a runroot under 50 characters
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return func(args ...string) string {
		return strings.TrimSpace(string(run(t, dir, childEnv(t), "podman", append([]string{"--root", filepath.Join(dir, "root"),
			"--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs", "--cgroup-manager", "cgroupfs", "--events-backend", "none"}, args...)...)))
	}
}

// rootfs is a tar of files, what `podman import` makes an image of.
func rootfs(t *testing.T, dir string, files map[string]string) string {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		io.WriteString(tw, body)
	}
	tw.Close()
	path := filepath.Join(dir, "rootfs.tar")
	if err := os.WriteFile(path, tb.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPodmanPullReplaysTheLayer pushes an image with podman to Debian's
// docker-registry, records a real `podman pull` through the recording
// reverse proxy in front of it, saves and loads the cassette, stops the
// registry, and pulls again through the replaying proxy into a fresh image
// store: podman checks every blob's digest (the layer, gzip without a
// Content-Encoding, holds Python and JavaScript source with `password = …`), the image
// has the registry's manifest digest and layers, and the recorded layer is
// the registry's blob byte for byte (#35: a layer was rewritten).
func TestPodmanPullReplaysTheLayer(t *testing.T) {
	for _, tool := range []string{"podman", "docker-registry"} {
		if _, err := exec.LookPath(tool); err != nil {
			missingTool(t, tool+" not installed (apt-get install -y "+tool+")")
		}
	}
	reg := startRegistry(t)
	pusher := podmanStore(t)
	src := reg.addr + "/app:latest"
	pusher("import", "--quiet", rootfs(t, t.TempDir(), map[string]string{
		"app/settings.py": "import os\n\npassword = os.environ.get(\"APP_PASSWORD\", \"\")\n",
		"app/login.js":    "var password = document.getElementById('pw').value;\nconst password2 = querystring.unescape(pw);\n"}), src)
	pusher("push", "--quiet", "--tls-verify=false", src)
	digest := reg.tagged(t, "app", "latest")
	var manifest struct{ Layers []struct{ Digest string } }
	if err := json.Unmarshal(reg.blob(t, digest), &manifest); err != nil || len(manifest.Layers) != 1 {
		t.Fatalf("manifest %s: %v, %d layers", digest, err, len(manifest.Layers))
	}
	layer := manifest.Layers[0].Digest
	wantLayer := reg.blob(t, layer)

	pull := func(p *Proxy) (digest, layers string) {
		podman, ref := podmanStore(t), strings.TrimPrefix(p.URL(), "http://")+"/app:latest"
		podman("pull", "--quiet", "--tls-verify=false", ref)
		return podman("image", "inspect", "--format", "{{.Digest}}", ref), podman("image", "inspect", "--format", "{{json .RootFS.Layers}}", ref)
	}
	opts := Options{Mode: ModeRecord, CA: testCA(t), Upstream: "http://" + reg.addr}
	rec := startProxy(t, opts)
	got, layers := pull(rec)
	if got != digest {
		t.Fatalf("pulled through the recording proxy: digest %s, want the registry's %s", got, digest)
	}
	path := filepath.Join(t.TempDir(), "registry", "pull.yaml")
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Adapter: "registry", Scenario: "pull",
		Kind: cfgschema.KindHTTP, Interactions: flushed(t, rec), Path: path}
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	reg.stop()
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, it := range c.Interactions {
		if it.Request.Method == "GET" && strings.HasSuffix(it.Request.URL, "/blobs/"+layer) {
			stored++
			if !bytes.Equal(it.Response.Body.Bytes(), wantLayer) {
				t.Errorf("the stored layer is %d bytes (%s), the registry's %d (%s)", len(it.Response.Body), sha(it.Response.Body.Bytes()), len(wantLayer), layer)
			}
		}
	}
	if stored == 0 {
		t.Fatalf("no GET of the layer %s was recorded", layer)
	}

	opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{c}
	rep := startProxy(t, opts)
	if got, gotLayers := pull(rep); got != digest || gotLayers != layers {
		t.Errorf("replayed pull: digest %s layers %s, want %s %s", got, gotLayers, digest, layers)
	}
	if m := rep.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}
