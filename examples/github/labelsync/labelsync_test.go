package main

// The tests of labelsync run it against the fake GitHub API of this
// example (../fakes/github). Under `cassette observe -- go test ./...` they
// reach it through observe's proxy, whose address is CASSETTE_GITHUB_URL,
// and every call is recorded for `cassette coverage`; otherwise TestMain
// builds and starts the fake. Each request names its test in the
// Cassette-Test header.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// apiURL is the fake's address.
var apiURL string

func TestMain(m *testing.M) {
	apiURL = os.Getenv("CASSETTE_GITHUB_URL")
	if apiURL != "" {
		os.Exit(m.Run())
	}
	stop, err := startFake()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the fake GitHub API:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// startFake builds ../fakes/github, starts it on a free port and reads
// its address from what it prints.
func startFake() (stop func(), err error) {
	dir, err := os.MkdirTemp("", "labelsync-fake-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "fake-github")
	if out, err := exec.Command("go", "build", "-o", bin, "../fakes/github").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT=0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); os.RemoveAll(dir) }
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			apiURL = strings.TrimSpace(u)
			return stop, nil
		}
	}
	stop()
	return nil, fmt.Errorf("the fake exited before listening")
}

// named sends the test's name with every request.
type named struct{ test string }

func (n named) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Cassette-Test", n.test)
	return http.DefaultTransport.RoundTrip(r)
}

func client(t *testing.T) *Client {
	return &Client{BaseURL: apiURL, Token: "test-token", HTTP: &http.Client{Transport: named{t.Name()}}}
}

const owner = "octokit-fixture-org"

func names(ls []Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name+" "+l.Color)
	}
	return out
}

func TestList(t *testing.T) {
	ls, err := client(t).List(context.Background(), owner, "labels")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 9 || !slices.Contains(names(ls), "good first issue 7057ff") {
		t.Errorf("labels: %q", names(ls))
	}
}

func TestSync(t *testing.T) {
	c, ctx := client(t), context.Background()
	want := []Label{{Name: "bug", Color: "fc2929"}, {Name: "test-label", Color: "663399"}, {Name: "question", Color: "D876E3"}}
	changes, err := c.Sync(ctx, owner, "sync", want, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changes, "; ") != "recoloured bug d73a4a → fc2929; created test-label" {
		t.Errorf("changes: %q", changes)
	}
	ls, err := c.List(ctx, owner, "sync")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ls); len(got) != 10 || !slices.Contains(got, "bug fc2929") || !slices.Contains(got, "test-label 663399") {
		t.Errorf("labels after the sync: %q", got)
	}
	if again, err := c.Sync(ctx, owner, "sync", want, false); err != nil || len(again) != 0 {
		t.Errorf("a second sync changed %q (%v), want nothing", again, err)
	}
}

func TestSyncPrune(t *testing.T) {
	c, ctx := client(t), context.Background()
	changes, err := c.Sync(ctx, owner, "prune", []Label{{Name: "bug", Color: "d73a4a"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 8 || changes[0] != "deleted documentation" {
		t.Errorf("changes: %q", changes)
	}
	if ls, err := c.List(ctx, owner, "prune"); err != nil || strings.Join(names(ls), ",") != "bug d73a4a" {
		t.Errorf("labels after pruning: %q (%v)", names(ls), err)
	}
}

func TestGetCreatedThenDeleted(t *testing.T) {
	c, ctx := client(t), context.Background()
	if _, err := c.Create(ctx, owner, "lifecycle", Label{Name: "test-label", Color: "663399"}); err != nil {
		t.Fatal(err)
	}
	l, err := c.Get(ctx, owner, "lifecycle", "test-label")
	if err != nil || l.Name != "test-label" || l.Color != "663399" {
		t.Fatalf("get: %+v, %v", l, err)
	}
	if err := c.Delete(ctx, owner, "lifecycle", "test-label"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, owner, "lifecycle", "test-label"); !NotFound(err) {
		t.Errorf("get after delete: %v, want 404", err)
	}
}

func TestInvalidColor(t *testing.T) {
	_, err := client(t).Create(context.Background(), owner, "errors", Label{Name: "foo", Color: "invalid"})
	var e *APIError
	if !errors.As(err, &e) || e.Status != 422 || err.Error() != "422 Validation Failed (Label color: invalid)" {
		t.Errorf("error %v, want 422 Validation Failed (Label color: invalid)", err)
	}
}

func TestParseList(t *testing.T) {
	ls, err := ParseList(strings.NewReader("# labels\nbug d73a4a\n\ngood first issue #7057ff\n"))
	if err != nil || strings.Join(names(ls), ",") != "bug d73a4a,good first issue 7057ff" {
		t.Errorf("%q %v", names(ls), err)
	}
	if _, err := ParseList(strings.NewReader("bug\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a line without a colour: %v", err)
	}
}
