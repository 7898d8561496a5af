package recording

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// The live-call retry policy of specs/000 ("live provider calls use
// deterministic retry policy").
const (
	// MaxAttempts is LIVE_E2E_MAX_ATTEMPTS: the first call plus two retries.
	MaxAttempts = 3
	// MaxRetryAfter bounds a server's Retry-After: a recording run waits as
	// long as the server asks up to this; a server asking for longer is rate
	// limiting for real, and the run fails at once with E_RATE_LIMIT rather
	// than hanging a CI job or retrying before it was told to.
	MaxRetryAfter = 30 * time.Second
)

// Policy is a live-call retry policy. The zero value is not useful; start
// from DefaultPolicy.
type Policy struct {
	MaxAttempts     int             // attempts in all, the first one included
	RetryableStatus []int           // statuses that are retried
	Backoff         []time.Duration // wait before attempt i+2; the last entry repeats
	MaxRetryAfter   time.Duration   // cap on a server's Retry-After
	// Sleep waits d or until ctx is done. Tests inject one that records the
	// waits instead of sleeping; nil sleeps on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read a Retry-After HTTP-date; nil is time.Now.
	Now func() time.Time
}

// DefaultPolicy returns the policy of specs/000: 3 attempts, statuses
// 408/429/500/502/503/504/529 and transport timeouts or resets retried,
// backoff 500 ms then 1500 ms, Retry-After honoured up to MaxRetryAfter.
func DefaultPolicy() Policy {
	return Policy{
		MaxAttempts: MaxAttempts,
		// LIVE_E2E_RETRYABLE_HTTP_STATUS, and LIVE_E2E_RETRY_BACKOFF_MS: the
		// wait before the second and the third attempt. A fresh slice each
		// call, so that no caller's change reaches another.
		RetryableStatus: []int{408, 429, 500, 502, 503, 504, 529},
		Backoff:         []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond},
		MaxRetryAfter:   MaxRetryAfter,
	}
}

// Telemetry is the retry telemetry every live call reports (specs/000: the
// `attempts` and `retry_backoff_ms` fields of a live provider result).
type Telemetry struct {
	Attempts       int     `json:"attempts"`
	RetryBackoffMS []int64 `json:"retry_backoff_ms"`
	// Statuses holds the status of each attempt, 0 for a transport error.
	Statuses []int `json:"statuses,omitempty"`
}

// LiveRecord is the result contract of one live recording (specs/000: the
// live_record result fields plus the retry telemetry of each live call).
type LiveRecord struct {
	ExecutionMode  string `json:"execution_mode"`  // always "live_record"
	ReplayBoundary string `json:"replay_boundary"` // "live_request_then_vcr_trace_extract"
	TraceOrigin    string `json:"trace_origin"`    // "vcr_last_interaction"
	// Calls is the retry telemetry of each live call, in the order they
	// were made (one per request; a command is one call): never summed, so
	// that attempts − 1 is always the number of backoffs of one call.
	Calls []Telemetry `json:"calls"`
}

// NewLiveRecord returns the live_record result of the given live calls.
func NewLiveRecord(calls ...Telemetry) LiveRecord {
	return LiveRecord{
		ExecutionMode:  "live_record",
		ReplayBoundary: "live_request_then_vcr_trace_extract",
		TraceOrigin:    "vcr_last_interaction",
		Calls:          calls,
	}
}

// Do sends the request built by newReq through rt, retrying as the policy
// says. newReq is called once per attempt so that each attempt gets a fresh
// body. On success (a response with a status that is not retried, or the last
// attempt's response whatever its status) it returns the response, whose body
// the caller must close. A transport error that is not retried, or that
// persists after the last attempt, is returned as it is. The telemetry is
// filled in every case.
func (p Policy) Do(ctx context.Context, rt http.RoundTripper, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, Telemetry, error) {
	var tel Telemetry
	max := p.MaxAttempts
	if max < 1 {
		max = 1
	}
	for attempt := 1; ; attempt++ {
		req, err := newReq(ctx)
		if err != nil {
			return nil, tel, err
		}
		tel.Attempts = attempt
		resp, err := rt.RoundTrip(req)
		var wait time.Duration
		switch {
		case err != nil:
			tel.Statuses = append(tel.Statuses, 0)
			if attempt >= max || ctx.Err() != nil || !RetryableError(err) {
				return nil, tel, err
			}
			wait = p.backoff(attempt)
		default:
			tel.Statuses = append(tel.Statuses, resp.StatusCode)
			if resp.StatusCode == http.StatusSwitchingProtocols {
				return resp, tel, nil // the body is the upgraded connection (a WebSocket session): not read here
			}
			if attempt >= max || !p.retryableStatus(resp.StatusCode) {
				// The body is read here, inside the policy: a reset or a
				// timeout half-way through it is retried like one before it.
				body, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				if rerr == nil {
					resp.Body = io.NopCloser(bytes.NewReader(body))
					return resp, tel, nil
				}
				if attempt >= max || ctx.Err() != nil || !RetryableError(rerr) {
					return nil, tel, rerr
				}
				wait = p.backoff(attempt)
				break
			}
			wait = p.backoff(attempt)
			if ra, ok := p.retryAfter(resp.Header.Get("Retry-After")); ok {
				if ra > p.maxRetryAfter() {
					// Rate limited for longer than a run may wait: give up
					// now with the server's answer (E_RATE_LIMIT), instead of
					// retrying early against its word.
					return resp, tel, nil
				}
				wait = ra
			}
			// Drain a little so the connection can be reused, then let go.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		tel.RetryBackoffMS = append(tel.RetryBackoffMS, wait.Milliseconds())
		if err := p.sleep(ctx, wait); err != nil {
			return nil, tel, err
		}
	}
}

// expecting is the policy for a call that answers code on purpose: code is
// not retried (0 changes nothing).
func (p Policy) expecting(code int) Policy {
	if code == 0 || !p.retryableStatus(code) {
		return p
	}
	p.RetryableStatus = slices.DeleteFunc(slices.Clone(p.RetryableStatus), func(c int) bool { return c == code })
	return p
}

func (p Policy) retryableStatus(code int) bool {
	for _, c := range p.RetryableStatus {
		if c == code {
			return true
		}
	}
	return false
}

// backoff is the wait after the given failed attempt (1-based).
func (p Policy) backoff(attempt int) time.Duration {
	if len(p.Backoff) == 0 {
		return 0
	}
	i := attempt - 1
	if i >= len(p.Backoff) {
		i = len(p.Backoff) - 1
	}
	return p.Backoff[i]
}

func (p Policy) retryAfter(v string) (time.Duration, bool) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	return ParseRetryAfter(v, now())
}

func (p Policy) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter <= 0 {
		return MaxRetryAfter
	}
	return p.MaxRetryAfter
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return SleepContext(ctx, d)
}

// SleepContext waits d, or returns ctx's error as soon as ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3):
// either a number of seconds or an HTTP-date, which is turned into a wait
// relative to now (a date in the past is a wait of 0). It reports false for
// an absent or malformed value.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

// RetryableError reports whether a transport error is of the timeout or
// reset class that the live-call policy retries: a network timeout, a
// connection reset or broken pipe, or a connection closed before the
// response arrived. Refused connections, DNS failures, TLS verification
// failures and the caller's own cancellation are not retried.
func RetryableError(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF)
}
