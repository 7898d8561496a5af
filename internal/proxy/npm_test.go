package proxy

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// registry is a minimal npm registry over real TLS: the packument of one
// package and its tarball, whose sha512 the packument gives as integrity
// (what npm checks before it installs).
func registry(t *testing.T, tgz []byte) *httptest.Server {
	sum := sha512.Sum512(tgz)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	var base string
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/ws-like":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"name": "ws-like", "dist-tags": map[string]string{"latest": "1.0.0"},
				"versions": map[string]any{"1.0.0": map[string]any{"name": "ws-like", "version": "1.0.0",
					"dist": map[string]string{"tarball": base + "/ws-like/-/ws-like-1.0.0.tgz", "integrity": integrity}}},
			})
		case r.URL.Path == "/ws-like/-/ws-like-1.0.0.tgz":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}), false)
	// npm verifies a registry at 127.0.0.1 as "localhost": name it so,
	// and have the proxy verify the upstream by the name its certificate
	// holds.
	base = strings.Replace(up.URL, "127.0.0.1", "localhost", 1)
	return up
}

// TestNpmInstallReplaysTheTarball runs a real `npm install` from a local
// registry through the recording MITM proxy, then again, with a fresh
// cache and the registry closed, through the replaying proxy: npm checks
// the tarball's integrity (sha512) and installs it, so the replayed bytes
// are the recorded ones (#35: a tarball with `password = …` in its
// JavaScript was rewritten, and npm refused it on replay).
func TestNpmInstallReplaysTheTarball(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		missingTool(t, "npm not installed (apt-get install -y npm)")
	}
	up := registry(t, tarball(t, ""))
	base := strings.Replace(up.URL, "127.0.0.1", "localhost", 1)
	tr := trusting(up)
	tr.TLSClientConfig.ServerName = "example.com" // the name httptest's certificate holds
	ca := testCA(t)
	install := func(proxyURL string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"app","version":"1.0.0","private":true}`), 0o644)
		env := childEnv(t, ca.ChildEnv(proxyURL)...)
		env = append(env, "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false",
			"npm_config_cache="+filepath.Join(dir, ".npm-cache"), "npm_config_registry="+base+"/", "npm_config_strict_ssl=true", "npm_config_cafile="+ca.CertFile(), "npm_config_fetch_retries=0")
		run(t, dir, env, "npm", "install", "--no-package-lock", "ws-like")
		js, err := os.ReadFile(filepath.Join(dir, "node_modules", "ws-like", "lib", "auth.js"))
		if err != nil || !strings.Contains(string(js), "const password = querystring.unescape(") {
			t.Fatalf("installed auth.js: %q %v", js, err)
		}
	}
	rec := startProxy(t, Options{Mode: ModeRecord, CA: ca, Transport: tr})
	install(rec.URL())
	its := flushed(t, rec)
	if len(its) < 2 {
		t.Fatalf("recorded %d interactions", len(its))
	}
	rec.Close()
	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	install(rep.URL())
	if m := rep.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}
