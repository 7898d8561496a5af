package verify

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The retry policy of quarantined tests (specs/000, "CI applies a uniform
// retry policy for quarantined tests before reporting failure").
const (
	DefaultQuarantineRetries = 1               // "Max auto-retries: 1"
	DefaultQuarantineDelay   = 5 * time.Second // "Retry delay: 5 seconds"
)

// QuarantineRetry is the retry policy of quarantined cases: a case under
// an unexpired quarantine that fails is run again, alone ("Retry scope:
// failed target only"), up to Budget times, Delay after each failure; its
// last attempt is its result ("second failure policy: treated as
// deterministic failure", which the quarantine keeps from failing the
// run). A case that is not quarantined is never retried.
type QuarantineRetry struct {
	Budget int           // 0 means DefaultQuarantineRetries
	Delay  time.Duration // 0 means DefaultQuarantineDelay
	// Sleep waits d or until ctx is done; nil waits on a timer. Tests
	// inject one that records the wait.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (q QuarantineRetry) budget() int { return cmp.Or(q.Budget, DefaultQuarantineRetries) }

func (q QuarantineRetry) delay() time.Duration { return cmp.Or(q.Delay, DefaultQuarantineDelay) }

func (q QuarantineRetry) sleep(ctx context.Context, d time.Duration) error {
	if q.Sleep != nil {
		return q.Sleep(ctx, d)
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryQuarantined runs a quarantined case that failed again, as the
// policy says; again runs it once more (with a fake of its own).
func retryQuarantined(ctx context.Context, q QuarantineRetry, res Result, again func() Result) Result {
	var retries []verdict.Retry
	for range q.budget() {
		if !res.Failed() || res.Quarantine == nil || res.Reason == outcome.EQuarantineExpired || res.Reason == outcome.EInterrupted {
			break
		}
		d := q.delay()
		retries = append(retries, verdict.Retry{Status: res.Status, Reason: res.Reason, Message: res.Message, DelayMS: d.Milliseconds()})
		if q.sleep(ctx, d) != nil {
			break // interrupted: the failure stands
		}
		res = again()
	}
	if len(retries) > 0 {
		res.Retries = retries
	}
	return res
}

// applyQuarantine attaches the case's quarantine entry: an expired entry
// turns the case into a hard failure, whatever its outcome.
func applyQuarantine(res *Result, cfg *cfgschema.Config, now time.Time) {
	q, ok := cfg.Quarantine[res.Case.ID()]
	if !ok {
		return
	}
	res.Quarantine = &q
	if q.Expired(now) {
		res.Status, res.Reason = verdict.StatusFail, outcome.EQuarantineExpired
		res.Message = fmt.Sprintf("quarantine of %s expired on %s", res.Case.ID(), q.Expires)
	}
}
