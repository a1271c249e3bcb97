package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// DefaultSweepInterval is how often expired sessions, spent e-mail tokens
// and finished rate-limit windows are deleted.
const DefaultSweepInterval = time.Hour

// Sweeper deletes rows no request can use any more; postgres.DB is one.
type Sweeper interface {
	Sweep(ctx context.Context, now, windowsBefore time.Time) (postgres.Swept, error)
}

// SweepArgs is the periodic sweep.
type SweepArgs struct{}

// Kind implements river.JobArgs.
func (SweepArgs) Kind() string { return "sweep" }

// sweepPeriodic inserts a sweep at start and every interval, on the leader
// only and never while one is queued or running: one sweep at a time
// across all instances. A failed sweep is not retried; the next is.
func sweepPeriodic(interval time.Duration) *river.PeriodicJob {
	return onePeriodic("sweep", interval, SweepArgs{})
}

// sweepWorker runs one sweep.
type sweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	db Sweeper
	// window is the rate limit's window: a window's row is kept until the
	// window has ended.
	window time.Duration
	log    *zap.Logger
	now    func() time.Time
}

// Work deletes what has expired and logs how much.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	now := w.now()
	s, err := w.db.Sweep(ctx, now, now.Add(-w.window))
	if err != nil {
		return err
	}
	w.log.Info("swept expired rows", zap.Int64("sessions", s.Sessions),
		zap.Int64("account_tokens", s.AccountTokens), zap.Int64("rate_limit_windows", s.RateLimitWindows),
		zap.Int64("rate_limit_logs", s.RateLimitLogs))
	return nil
}
