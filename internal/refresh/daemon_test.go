package refresh

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestDaemonWeeks runs the daemon over simulated weeks: every activation
// happens on Sunday 00:00 in the schedule's zone, a panicking cycle does not
// stop the schedule, an overrunning one makes the next activation skip, a
// missed run is caught up at start, and a stop waits for the cycle in flight.
func TestDaemonWeeks(t *testing.T) {
	zone := time.FixedZone("UTC-5", -5*3600)
	tests := []struct {
		name    string
		lastRun func(start time.Time) time.Time
		job     func(i int, ctx context.Context) // the i-th run's behaviour
		run     time.Duration
		want    int // runs started
		catchUp bool
	}{
		{name: "five weeks", run: 5 * 7 * 24 * time.Hour, want: 5},
		{name: "a panic does not stop the schedule", run: 4 * 7 * 24 * time.Hour, want: 4,
			job: func(i int, _ context.Context) {
				if i == 0 {
					panic("boom")
				}
			}},
		{name: "an overrunning cycle skips the next activation", run: 4 * 7 * 24 * time.Hour, want: 3,
			job: func(i int, _ context.Context) {
				if i == 0 {
					time.Sleep(10 * 24 * time.Hour)
				}
			}},
		{name: "a missed run is caught up at start", run: 2 * 7 * 24 * time.Hour, want: 3, catchUp: true,
			lastRun: func(start time.Time) time.Time { return start.Add(-9 * 24 * time.Hour) }},
		{name: "a recent run is not caught up", run: 2 * 7 * 24 * time.Hour, want: 2,
			lastRun: func(start time.Time) time.Time { return start.Add(-time.Hour) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var mu sync.Mutex
				var runs []time.Time
				var log bytes.Buffer
				d := &Daemon{Schedule: "@weekly", Location: zone, Log: &syncWriter{w: &log},
					Job: func(ctx context.Context, now time.Time) {
						mu.Lock()
						i := len(runs)
						runs = append(runs, now)
						mu.Unlock()
						if tt.job != nil {
							tt.job(i, ctx)
						}
					}}
				if tt.lastRun != nil {
					d.LastRun = func(context.Context) (time.Time, error) { return tt.lastRun(start), nil }
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error)
				go func() { done <- d.Serve(ctx) }()
				time.Sleep(tt.run + time.Minute)
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if len(runs) != tt.want {
					t.Fatalf("runs = %d, want %d: %v\nlog:\n%s", len(runs), tt.want, runs, log.String())
				}
				for i, r := range runs {
					if tt.catchUp && i == 0 {
						if !r.Equal(start) {
							t.Errorf("catch-up run at %v, want at start %v", r, start)
						}
						continue
					}
					if r.Weekday() != time.Sunday || r.Hour() != 0 || r.Minute() != 0 || r.Location() != zone {
						t.Errorf("run %d at %v, want Sunday 00:00 in %v", i, r, zone)
					}
				}
				if !strings.Contains(log.String(), "next run") {
					t.Errorf("the log does not show the next run time:\n%s", log.String())
				}
			})
		})
	}
}

// TestDaemonStopWaitsForCycle: a stop during a cycle returns only after it.
func TestDaemonStopWaitsForCycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, finished := make(chan struct{}), false
		d := &Daemon{Schedule: "@daily", Job: func(ctx context.Context, _ time.Time) {
			close(started)
			time.Sleep(time.Hour)
			if ctx.Err() != nil {
				t.Error("the cycle's context was cancelled by the stop")
			}
			finished = true
		}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- d.Serve(ctx) }()
		<-started
		cancel()
		<-done
		if !finished {
			t.Fatal("Serve returned before the cycle in flight finished")
		}
	})
}

func TestParseSchedule(t *testing.T) {
	for _, tt := range []struct {
		spec string
		ok   bool
	}{{"@weekly", true}, {"0 6 * * 1", true}, {"CRON_TZ=UTC", false}, {"every tuesday", false}, {"", false}} {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := ParseSchedule(tt.spec)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseSchedule(%q) error = %v, want ok=%v", tt.spec, err, tt.ok)
			}
		})
	}
	if err := (&Daemon{Schedule: "CRON_TZ=UTC"}).Serve(context.Background()); err == nil || !strings.Contains(err.Error(), "not a cron spec") {
		t.Fatalf("Serve with a bad spec: %v", err)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
