package proxy

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// ociRegistry serves one image (a manifest, its config and one gzip
// layer) as the registry API v2 does, each by its digest: what a
// container engine pulls and checks.
func ociRegistry(t *testing.T, files map[string]string) (*httptest.Server, string) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		io.WriteString(tw, body)
	}
	tw.Close()
	layer := gzipped(t, tb.String())
	config, _ := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux",
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{sha(tb.Bytes())}}, "config": map[string]any{}})
	manifest, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(config), "size": len(config)},
		"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(layer), "size": len(layer)}}})
	blobs := map[string][]byte{sha(config): config, sha(layer): layer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Docker-Distribution-Api-Version", "registry/2.0")
		switch {
		case r.URL.Path == "/v2/" || r.URL.Path == "/v2":
			w.Write([]byte("{}"))
		case r.URL.Path == "/v2/app/manifests/latest" || r.URL.Path == "/v2/app/manifests/"+sha(manifest):
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", sha(manifest))
			w.Header().Set("Content-Length", fmt.Sprint(len(manifest)))
			if r.Method != http.MethodHead {
				w.Write(manifest)
			}
		case strings.HasPrefix(r.URL.Path, "/v2/app/blobs/"):
			b, ok := blobs[strings.TrimPrefix(r.URL.Path, "/v2/app/blobs/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Docker-Content-Digest", sha(b))
			w.Write(b)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, sha(manifest)
}

// TestPodmanPullReplaysTheLayer runs a real `podman pull` through the
// recording reverse proxy in front of a registry, then again into a fresh
// image store with the registry closed: podman checks every blob's digest
// (the layer, gzip without a Content-Encoding, holds JavaScript with
// `var password = document.getElementById(…)`), and the image it stores
// has the recorded manifest's digest (#35: a layer was rewritten).
func TestPodmanPullReplaysTheLayer(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		missingTool(t, "podman not installed (apt-get install -y podman)")
	}
	reg, digest := ociRegistry(t, map[string]string{"app/login.js": "var password = document.getElementById('pw').value;\n"})
	pull := func(p *Proxy) string {
		dir, err := os.MkdirTemp("", "pm") // podman wants a runroot under 50 characters
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		ref := strings.TrimPrefix(p.URL(), "http://") + "/app:latest"
		podman := func(args ...string) []byte {
			return run(t, dir, childEnv(t), "podman", append([]string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"),
				"--storage-driver", "vfs", "--cgroup-manager", "cgroupfs", "--events-backend", "none"}, args...)...)
		}
		podman("pull", "--quiet", "--tls-verify=false", ref)
		return strings.TrimSpace(string(podman("image", "inspect", "--format", "{{.Digest}}", ref)))
	}
	opts := Options{Mode: ModeRecord, CA: testCA(t), Upstream: reg.URL}
	rec := startProxy(t, opts)
	if got := pull(rec); got != digest {
		t.Fatalf("pulled through the recording proxy: digest %s, want %s", got, digest)
	}
	its := flushed(t, rec)
	rec.Close()
	reg.Close()
	opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{{Interactions: its}}
	rep := startProxy(t, opts)
	if got := pull(rep); got != digest {
		t.Errorf("replayed pull: digest %s, want %s", got, digest)
	}
	if m := rep.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}
