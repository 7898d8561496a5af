package e2e

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// StartProxy runs `cassette proxy ARGS...` in the example until the test
// ends and returns the URL it listens on (read from what it prints, so the
// kernel picks the port).
func (e *Example) StartProxy(t testing.TB, cassette string, args ...string) string {
	t.Helper()
	cmd := exec.Command(cassette, append([]string{"proxy"}, args...)...)
	cmd.Dir, cmd.Env = e.Dir, e.Env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return strings.TrimSpace(u)
		}
	}
	_ = cmd.Wait()
	t.Fatalf("cassette proxy %s exited before listening:\n%s", strings.Join(args, " "), stderr.String())
	return ""
}

// ReadYAML decodes the YAML file at path into v.
func ReadYAML(t testing.TB, path string, v any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(ReadFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
