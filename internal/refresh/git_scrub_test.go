package refresh

import (
	"context"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestRemoteTokenNeverShown: a remote URL that carries a token (and a
// declared secret) appears in no error message or next step.
func TestRemoteTokenNeverShown(t *testing.T) {
	g := &Git{Dir: t.TempDir(), Env: []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}, Secrets: map[string]string{"TOK": "sekrit123456"}}
	if _, err := g.Run(context.Background(), "init", "-q"); err != nil {
		t.Fatal(err)
	}
	remote := "https://x-access-token:sekrit123456@127.0.0.1:1/o/r.git"
	_, fetchErr := g.FetchRef(context.Background(), remote, "main")
	for _, err := range []error{g.Push(context.Background(), remote, "HEAD", "b"), fetchErr} {
		if err == nil {
			t.Fatal("an unreachable remote gave no error")
		}
		ce := outcome.AsError(err)
		if text := ce.Error() + ce.NextStep; strings.Contains(text, "sekrit123456") {
			t.Errorf("the token is shown: %s", text)
		}
	}
}
