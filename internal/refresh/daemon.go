package refresh

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/robfig/cron/v3"
)

// Daemon runs a job on a cron schedule: robfig/cron with the chain
// SkipIfStillRunning then Recover (a panic never stops the schedule, and a
// cycle that overruns the next activation makes it skip, not pile up), in an
// explicit time zone. A run missed while nothing was running (the machine
// was off) is caught up at start, from the persisted last run.
type Daemon struct {
	Schedule string         // a 5-field cron spec or a descriptor like @weekly
	Location *time.Location // nil is UTC
	// Job is one cycle; now is the activation time in Location. It runs
	// with a context that is not cancelled by a stop, so that the cycle in
	// flight finishes.
	Job func(ctx context.Context, now time.Time)
	// LastRun returns the time of the last run, persisted (zero: never).
	LastRun func(ctx context.Context) (time.Time, error)
	Log     io.Writer // next run times and recovered panics; nil discards
}

// ParseSchedule parses a cron spec the way Daemon does, inside recover:
// robfig/cron panics on some inputs (e.g. "CRON_TZ=UTC") instead of
// returning an error.
func ParseSchedule(spec string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s, err = cron.ParseStandard(spec)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func scheduleError(spec string, err error) error {
	return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("schedule %q is not a cron spec: %v", spec, err),
		Problems: []outcome.Problem{{Field: "refresh.schedule", Message: "not a cron spec", Expected: `5 fields like "0 6 * * 1", or @weekly, @daily, @every 168h`}},
		NextStep: outcome.Command("cassette", "refresh", "--schedule", "@weekly")}
}

// Serve runs until ctx is done, then waits for the job in flight.
func (d *Daemon) Serve(ctx context.Context) error {
	loc := d.Location
	if loc == nil {
		loc = time.UTC
	}
	sched, err := ParseSchedule(d.Schedule)
	if err != nil {
		return scheduleError(d.Schedule, err)
	}
	logw := d.Log
	if logw == nil {
		logw = io.Discard
	}
	logger := cron.PrintfLogger(printfLogger{logw})
	c := cron.New(cron.WithLocation(loc), cron.WithChain(cron.SkipIfStillRunning(logger), cron.Recover(logger)), cron.WithLogger(cron.DiscardLogger))
	jobCtx := context.WithoutCancel(ctx)
	var id cron.EntryID
	id = c.Schedule(sched, cron.FuncJob(func() {
		d.Job(jobCtx, time.Now().In(loc))
		fmt.Fprintf(logw, "next run: %s\n", c.Entry(id).Next.In(loc).Format(time.RFC3339))
	}))
	now := time.Now().In(loc)
	fmt.Fprintf(logw, "schedule %q (%s): next run %s\n", d.Schedule, loc, sched.Next(now).Format(time.RFC3339))
	var catchUp sync.WaitGroup
	c.Start()
	if d.LastRun != nil {
		last, err := d.LastRun(ctx)
		if err != nil {
			fmt.Fprintf(logw, "cannot read the last run (%v): no catch-up\n", err)
		} else if !last.IsZero() && !sched.Next(last).After(now) {
			fmt.Fprintf(logw, "missed run at %s (last run %s): catching up now\n", sched.Next(last).In(loc).Format(time.RFC3339), last.In(loc).Format(time.RFC3339))
			catchUp.Add(1)
			go func() { defer catchUp.Done(); c.Entry(id).WrappedJob.Run() }()
		}
	}
	<-ctx.Done()
	<-c.Stop().Done()
	catchUp.Wait()
	return nil
}

type printfLogger struct{ w io.Writer }

func (p printfLogger) Printf(format string, args ...any) { fmt.Fprintf(p.w, format+"\n", args...) }
