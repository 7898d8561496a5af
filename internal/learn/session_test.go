package learn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// project writes a project with one http adapter and three cassettes: a
// GET, a POST and a mutating GET.
func project(t *testing.T) *workspace.Project {
	t.Helper()
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n  svc:\n    kind: http   # the service\n    real: {base_url: 'http://127.0.0.1:1'}\n    fake: {command: [x]}\n"
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct {
		name, method string
		mutating     bool
	}{{"get", "GET", false}, {"post", "POST", false}, {"wipe", "GET", true}} {
		c := httpRec("http://127.0.0.1:1/x", `{"id":"6f1c0000-aaaa-4bbb-8ccc-1234567890a0"}`, nil)
		c.Cassette, c.Version, c.Scenario, c.Mutating = 1, 2, sc.name, sc.mutating
		c.Interactions[0].Request.Method = sc.method
		c.Path = filepath.Join(dir, "cassettes", "svc", sc.name+".yaml")
		if err := cassettes.Save(c, cassettes.SaveOptions{Root: dir}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSessionRepeatsOnlySafeCalls: the GET is recorded --repeat times,
// --interval apart (the waits are recorded, not slept), each from a new
// client whose connections are released only once the last repeat is
// made; the POST and the mutating scenario are listed with the command
// that would run them. The recorder is a function here: what is tested is
// which calls are made; recording itself is the recorder's (learn.txtar
// and the examples run the real one, and recording's
// TestLiveHoldsClientsUntilReleased the held connections).
func TestSessionRepeatsOnlySafeCalls(t *testing.T) {
	p := project(t)
	var calls []string
	var waits []time.Duration
	n := 0
	s := Session{Project: p, Adapter: "svc", Repeat: 4, Interval: 2 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
		Record: func(_ context.Context, old *cassettes.Cassette) (*cassettes.Cassette, func(), error) {
			n++
			calls = append(calls, old.Scenario)
			c := *old
			c.Interactions = slices.Clone(old.Interactions)
			c.Interactions[0].Response.Body = cassettes.Body(fmt.Sprintf(`{"id":"6f1c%04d-aaaa-4bbb-8ccc-1234567890a0"}`, n))
			client := n
			return &c, func() { calls = append(calls, fmt.Sprintf("release %d", client)) }, nil
		}}
	out, err := s.Learn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"get", "get", "get", "get", "release 1", "release 2", "release 3", "release 4"}; !slices.Equal(calls, want) || len(waits) != 3 || waits[0] != 2*time.Second {
		t.Errorf("calls %v, waits %v; want the GET 4 times, 3 waits of 2s, then its 4 clients released", calls, waits)
	}
	var skipped []string
	for _, sk := range out.Skipped {
		skipped = append(skipped, sk.Scenario+": "+sk.NextStep)
	}
	config := " --config " + p.Config.Path // the project was loaded from there: each step names it
	if want := []string{"post: cassette learn --adapter svc --scenario post --rerecord-unsafe" + config, "wipe: cassette learn --adapter svc --scenario wipe --rerecord-unsafe" + config}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if !out.Changed() || !strings.Contains(string(out.New), "    normalizers: [uuid]   # learned by cassette learn\n    kind: http   # the service\n") {
		t.Errorf("the patch:\n%s", out.New)
	}

	// --apply writes it and records each safe scenario once more, saved
	// with the new normalizers.
	calls = nil
	if err := s.Apply(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p.Config.Path); string(got) != string(out.New) || !slices.Equal(calls, []string{"get", "release 5"}) {
		t.Errorf("apply wrote %q and recorded %v", got, calls)
	}
	c, err := cassettes.Load(filepath.Join(p.Config.Dir, "cassettes", "svc", "get.yaml"), cassettes.LoadOptions{})
	if err != nil || !slices.Equal(c.Normalizers, []string{"uuid"}) {
		t.Errorf("the recorded cassette: %v, normalizers %v", err, c.Normalizers)
	}
	// A cassette.yaml changed meanwhile is not overwritten.
	if err := s.Apply(context.Background(), out); err == nil || !strings.Contains(err.Error(), "changed while cassette learn ran") {
		t.Errorf("a second apply of the same outcome: %v", err)
	}
}

// TestSessionReleasesClientsWhenARepeatFails: the real side failing on a
// repeat ends learning with its error, and the clients of the repeats made
// so far, the failed one's too, are released.
func TestSessionReleasesClientsWhenARepeatFails(t *testing.T) {
	p := project(t)
	var calls []string
	n := 0
	s := Session{Project: p, Adapter: "svc", Repeat: 3,
		Record: func(_ context.Context, old *cassettes.Cassette) (*cassettes.Cassette, func(), error) {
			n++
			client := n
			release := func() { calls = append(calls, fmt.Sprintf("release %d", client)) }
			if n == 2 {
				return nil, release, &outcome.Error{Reason: outcome.ERealUnreachable, Message: "connection refused"}
			}
			c := *old
			return &c, release, nil
		}}
	_, err := s.Learn(context.Background())
	if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.ERealUnreachable {
		t.Fatalf("err = %v, want the real side's failure", err)
	}
	if want := []string{"release 1", "release 2"}; !slices.Equal(calls, want) {
		t.Errorf("released %v, want %v", calls, want)
	}
}

// TestSessionWithoutCassettesRecordsFirst: an adapter that has recorded
// nothing yet (no cassettes/<adapter> directory) is told to record, in
// the project's own config, not to run cassette validate, which passes.
func TestSessionWithoutCassettesRecordsFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n  tool:\n    kind: cli\n    real: {command: [sh, real.sh]}\n    fake: {command: [sh, real.sh]}\n"
	path := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Session{Project: p, Adapter: "tool"}.Learn(context.Background())
	ce := outcome.AsError(err)
	want := "cassette record --adapter tool --scenario first --config " + path + " -- sh real.sh"
	if ce.Reason != outcome.ECassetteNotFound || ce.NextStep != want {
		t.Errorf("%s: %v, next %q; want E_CASSETTE_NOT_FOUND, next %q", ce.Reason, err, ce.NextStep, want)
	}
}

// TestSessionLearnsFromTheFake: a real side that never varies (a stored
// recording) teaches nothing by itself; the fake's answers, which hold ids
// of their own, teach the uuid built-in — for the GET recorded again and
// for the POST and the mutating scenario too, which are not recorded again
// but whose committed cassettes the fake answers. A fake that cannot
// answer is a note: learning from reality goes on.
func TestSessionLearnsFromTheFake(t *testing.T) {
	p := project(t)
	var asked []string
	s := Session{Project: p, Adapter: "svc", Repeat: 2,
		Record: func(_ context.Context, old *cassettes.Cassette) (*cassettes.Cassette, func(), error) {
			c := *old
			return &c, nil, nil
		},
		Fake: func(_ context.Context, olds []*cassettes.Cassette) ([]*cassettes.Cassette, error) {
			var out []*cassettes.Cassette
			for i, old := range olds {
				asked = append(asked, old.Scenario)
				c := *old
				c.Interactions = slices.Clone(old.Interactions)
				c.Interactions[0].Response.Body = cassettes.Body(fmt.Sprintf(`{"id":"0b3e%04d-1111-4222-8333-444455556666"}`, i))
				out = append(out, &c)
			}
			return out, nil
		}}
	out, err := s.Learn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var learned []string
	for _, pl := range out.Result.Places {
		learned = append(learned, pl.Scenario)
	}
	if !slices.Equal(asked, []string{"get", "post", "wipe"}) || !slices.Equal(learned, []string{"get", "post", "wipe"}) || !out.Fake {
		t.Errorf("the fake was asked %v, places learned in %v (fake %v); want all three", asked, learned, out.Fake)
	}
	if !strings.Contains(string(out.New), "    normalizers: [uuid]   # learned by cassette learn\n") {
		t.Errorf("the patch:\n%s", out.New)
	}
	var b strings.Builder
	out.Write(&b, "svc")
	if !strings.Contains(b.String(), "learned from 3 recordings (the committed one and 2 new) and the fake's answer") {
		t.Errorf("the summary does not say the fake was compared:\n%s", b.String())
	}

	s.Fake = func(context.Context, []*cassettes.Cassette) ([]*cassettes.Cassette, error) {
		return nil, fmt.Errorf("fake svc did not start")
	}
	out, err = s.Learn(context.Background())
	if err != nil || out.Fake || !strings.Contains(out.FakeNote, "fake svc did not start") || out.Changed() {
		t.Errorf("a fake that cannot answer: %v, fake %v, note %q, changed %v", err, out.Fake, out.FakeNote, out.Changed())
	}
}
