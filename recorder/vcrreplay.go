package recorder

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
)

// Replay through a Recorder: the cassette as loaded, served by the
// proxy's index (package match), so that a miss is explained as the
// proxy's is.

// index builds the index that serves replay, when the mode replays a
// cassette that was loaded: ModeReplayOnly, ModeRecordOnce on an existing
// file, ModeReplayWithNewEpisodes on an existing file. The recorded side is
// redacted like an incoming request (a plain go-vcr file may still hold a
// secret that recording would have hidden).
func (t *Recorder) index() error {
	t.mu.Lock()
	loaded := t.loaded
	t.mu.Unlock()
	m := t.opts.mode
	if loaded == nil || !(m == ModeReplayOnly || m == ModeReplayWithNewEpisodes || m == ModeRecordOnce && !t.rec.IsNewCassette()) {
		return nil
	}
	idx, err := matching.New([]*cassettes.Cassette{loaded}, matching.Options{Rules: t.rules, Prepare: t.redact, Rerecord: t.rerecord})
	if err != nil {
		return outcome.Errorf(outcome.EUsage, "check the rules given to recorder.WithMatch", "cassette %s: %v", t.path, err)
	}
	t.idx = idx
	return nil
}

// rerecord is the next step of a miss: a cassette is recorded anew by
// removing it and running the test in ModeRecordOnce, which records a
// missing cassette (missError says the second part).
func (t *Recorder) rerecord(*cassettes.Cassette) string {
	path := t.path
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return outcome.Command("rm", path) // what then: missError says
}

// replay answers r with a recorded response, as go-vcr would (after the
// recorded duration with WithLatency), with headers of its own.
func (t *Recorder) replay(r *http.Request, it *cassettes.Interaction) (*http.Response, error) {
	p := it.Response
	if t.opts.latency && p.Duration > 0 {
		if err := recording.SleepContext(r.Context(), time.Duration(p.Duration)); err != nil {
			return nil, err
		}
	}
	return &http.Response{Status: p.Status, StatusCode: p.Code,
		Proto: p.Proto, ProtoMajor: p.ProtoMajor, ProtoMinor: p.ProtoMinor,
		TransferEncoding: p.TransferEncoding, Trailer: p.Trailer.Clone(), ContentLength: p.ContentLength,
		Uncompressed: p.Uncompressed, Body: io.NopCloser(bytes.NewReader([]byte(p.Body))), Header: p.Headers.Clone(),
		Close: true, Request: r}, nil
}

// readBody reads and closes r's body.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

// missError is a replay miss as a Recorder returns it: the miss (its
// whole explanation as the error text, its *outcome.Error), and go-vcr's
// ErrInteractionNotFound for code written against go-vcr.
type missError struct{ *matching.Miss }

// Error is the miss, then what to do after its next step (`rm` of the
// cassette): a next step is a command, the advice around it is prose.
func (e missError) Error() string {
	return e.Miss.Error() + "\nthen run the test again with recorder.ModeRecordOnce, which records a missing cassette"
}

func (e missError) Unwrap() []error { return []error{e.Miss, cassette.ErrInteractionNotFound} }
