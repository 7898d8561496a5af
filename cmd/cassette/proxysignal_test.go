package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestProxyRecordSavesOnSignal: `cassette proxy --mode record`, a real
// process, stopped by SIGINT or SIGTERM right after its last answer, saves
// every interaction it answered (their redaction runs after each response:
// the stop waits for it), and no bearer token is in the cassette.
func TestProxyRecordSavesOnSignal(t *testing.T) {
	const n, token = 200, "tok-9c41d7e2b8a5f036"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"item":"`+strings.TrimPrefix(r.URL.Path, "/item/")+`","auth":"`+r.Header.Get("Authorization")+`"}`)
	}))
	defer up.Close()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "shop", "items.yaml")
			cmd := exec.Command("cassette", "proxy", "--mode", "record", "--upstream", up.URL, "--cassette", path)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewScanner(stdout)
			addr := ""
			for addr == "" && out.Scan() {
				if _, rest, ok := strings.Cut(out.Text(), "listening on "); ok {
					addr = rest
				}
			}
			if addr == "" {
				_ = cmd.Process.Kill()
				t.Fatalf("the proxy never said where it listens: %v", out.Err())
			}
			c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for i := range n {
				req, _ := http.NewRequest("GET", addr+"/item/"+strconv.Itoa(i), nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %d: %s", i, resp.Status)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(stdout)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v after %s:\n%s\n%s", err, sig, rest, stderr.String())
			}
			c2, err := cassettes.Load(path, cassettes.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(c2.Interactions) != n {
				t.Fatalf("saved %d interactions of the %d answered before %s:\n%s", len(c2.Interactions), n, sig, rest)
			}
			for i, it := range c2.Interactions {
				if !strings.HasSuffix(it.Request.URL, "/item/"+strconv.Itoa(i)) {
					t.Fatalf("interaction %d is %s: out of order", i, it.Request.URL)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), token) || strings.Contains(stderr.String(), token) {
				t.Errorf("the bearer token is in the cassette or the log")
			}
		})
	}
}
