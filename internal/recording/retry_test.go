package recording

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// sleeper records the waits instead of sleeping.
type sleeper struct{ waits []time.Duration }

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func TestPolicyDo(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		statuses    []int    // what the server answers, attempt by attempt
		retryAfter  []string // Retry-After header per attempt
		wantStatus  int
		wantTel     Telemetry
		wantWaits   []time.Duration
		wantErr     bool
		resetFirstN int // close the connection without answering on the first n attempts
	}{
		{name: "ok first time", statuses: []int{200}, wantStatus: 200,
			wantTel: Telemetry{Attempts: 1, Statuses: []int{200}}},
		{name: "503 then 200", statuses: []int{503, 200}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{500}, Statuses: []int{503, 200}},
			wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "529 529 200 uses the whole schedule", statuses: []int{529, 529, 200}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 3, RetryBackoffMS: []int64{500, 1500}, Statuses: []int{529, 529, 200}},
			wantWaits: []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}},
		{name: "three 502 give up with the last response", statuses: []int{502, 502, 502, 200}, wantStatus: 502,
			wantTel:   Telemetry{Attempts: 3, RetryBackoffMS: []int64{500, 1500}, Statuses: []int{502, 502, 502}},
			wantWaits: []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}},
		{name: "404 is not retried", statuses: []int{404, 200}, wantStatus: 404,
			wantTel: Telemetry{Attempts: 1, Statuses: []int{404}}},
		{name: "401 is not retried", statuses: []int{401, 200}, wantStatus: 401,
			wantTel: Telemetry{Attempts: 1, Statuses: []int{401}}},
		{name: "Retry-After seconds honoured", statuses: []int{429, 200}, retryAfter: []string{"7"}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{7000}, Statuses: []int{429, 200}},
			wantWaits: []time.Duration{7 * time.Second}},
		{name: "Retry-After date honoured", statuses: []int{503, 200},
			retryAfter: []string{now.Add(4 * time.Second).Format(http.TimeFormat)}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{4000}, Statuses: []int{503, 200}},
			wantWaits: []time.Duration{4 * time.Second}},
		{name: "Retry-After beyond the limit gives up at once", statuses: []int{429, 200}, retryAfter: []string{"3600"}, wantStatus: 429,
			wantTel: Telemetry{Attempts: 1, Statuses: []int{429}}},
		{name: "Retry-After at the limit is waited in full", statuses: []int{429, 200}, retryAfter: []string{"30"}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{30000}, Statuses: []int{429, 200}},
			wantWaits: []time.Duration{MaxRetryAfter}},
		{name: "malformed Retry-After falls back to the schedule", statuses: []int{408, 200}, retryAfter: []string{"soon"}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{500}, Statuses: []int{408, 200}},
			wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "connection reset is retried", resetFirstN: 1, statuses: []int{0, 200}, wantStatus: 200,
			wantTel:   Telemetry{Attempts: 2, RetryBackoffMS: []int64{500}, Statuses: []int{0, 200}},
			wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "resets on every attempt fail", resetFirstN: 3, statuses: []int{0, 0, 0}, wantErr: true,
			wantTel:   Telemetry{Attempts: 3, RetryBackoffMS: []int64{500, 1500}, Statuses: []int{0, 0, 0}},
			wantWaits: []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if i < tt.resetFirstN {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					if tc, ok := conn.(*net.TCPConn); ok {
						tc.SetLinger(0) // RST, not FIN
					}
					conn.Close()
					return
				}
				if i < len(tt.retryAfter) && tt.retryAfter[i] != "" {
					w.Header().Set("Retry-After", tt.retryAfter[i])
				}
				w.WriteHeader(tt.statuses[i])
				w.Write([]byte("attempt " + strconv.Itoa(i+1)))
			}))
			defer srv.Close()
			sl := &sleeper{}
			p := DefaultPolicy()
			p.Sleep = sl.Sleep
			p.Now = func() time.Time { return now }
			tr := &http.Transport{DisableKeepAlives: true}
			defer tr.CloseIdleConnections()
			resp, tel, err := p.Do(context.Background(), tr, func(ctx context.Context) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			})
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("want an error, got status %d", resp.StatusCode)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tt.wantStatus {
					t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
				}
			}
			if !reflect.DeepEqual(tel, tt.wantTel) {
				t.Errorf("telemetry = %+v, want %+v", tel, tt.wantTel)
			}
			if !reflect.DeepEqual(sl.waits, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", sl.waits, tt.wantWaits)
			}
			if got := int(n.Load()); got != tel.Attempts {
				t.Errorf("server saw %d requests, telemetry says %d attempts", got, tel.Attempts)
			}
		})
	}
}

func TestPolicyDoStopsWhenContextIsCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p := DefaultPolicy()
	p.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return SleepContext(ctx, d) }
	_, tel, err := p.Do(ctx, http.DefaultTransport, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if tel.Attempts != 1 {
		t.Errorf("attempts = %d, want 1", tel.Attempts)
	}
}

func TestSleepContextWaitsOnTheFakeClock(t *testing.T) {
	// testing/synctest: the 1500 ms backoff passes instantly and exactly.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := SleepContext(context.Background(), 1500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Errorf("slept %v, want 1.5s", got)
		}
	})
}

func TestRetryableError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"canceled", context.Canceled, false},
		{"deadline", context.DeadlineExceeded, true},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, true},
		{"dns failure", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}, false},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, false},
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RetryableError(tt.err); got != tt.want {
				t.Errorf("RetryableError(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Sun, 06 Nov 1994 08:49:37 GMT", 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.in, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "120", "Sun, 06 Nov 1994 08:49:37 GMT", "-5", "99999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseRetryAfter(s, now)
		if d < 0 {
			t.Fatalf("negative wait %v for %q", d, s)
		}
		if !ok && d != 0 {
			t.Fatalf("not ok but wait %v for %q", d, s)
		}
	})
}

// TestPolicyRetriesABodyCutShort: a connection dropped half-way through the
// body is retried like one dropped before the status line (specs/000:
// transport resets are retryable).
func TestPolicyRetriesABodyCutShort(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("partial"))
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Write([]byte("whole body"))
	}))
	defer srv.Close()
	var waits []time.Duration
	p := DefaultPolicy()
	p.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	resp, tel, err := p.Do(context.Background(), srv.Client().Transport, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	if err != nil {
		t.Fatalf("Do: %v (telemetry %+v)", err, tel)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "whole body" || tel.Attempts != 2 || len(waits) != 1 || waits[0] != 500*time.Millisecond {
		t.Errorf("body %q, telemetry %+v, waits %v; want the second attempt's body after one 500ms backoff", body, tel, waits)
	}
}
