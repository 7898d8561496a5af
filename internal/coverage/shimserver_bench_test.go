package coverage

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/shimcall"
)

// BenchmarkShimServer is the observe process's work on one shim call: the
// connection, the request, the redaction and the line written.
func BenchmarkShimServer(b *testing.B) {
	srv, err := ListenShims()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	srv.Add(&Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: filepath.Join(b.TempDir(), "observed"), Credentials: []string{"GITHUB_TOKEN"}}})
	line, _ := json.Marshal(shimcall.Request{Adapter: "git", Argv: []string{"git", "log", "--oneline", "-n", "3"}, Caller: "rb calls"})
	line = append(line, '\n')
	b.ReportAllocs()
	for b.Loop() {
		c, err := net.Dial("unix", srv.Socket())
		if err != nil {
			b.Fatal(err)
		}
		c.Write(line)
		if a, _ := bufio.NewReader(c).ReadString('\n'); a != "ok\n" {
			b.Fatalf("answer %q", a)
		}
		c.Close()
	}
}
