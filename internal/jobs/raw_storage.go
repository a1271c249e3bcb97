package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// DefaultRawStorageInterval is how often events' partitions are created
// ahead and expired ones dropped.
const DefaultRawStorageInterval = time.Hour

// RawMonthsAhead is how many months after the current one have their
// partitions ready: two, so that a run missed for weeks still finds the
// next month created.
const RawMonthsAhead = 2

// RawStorage keeps events' partitions (docs/scale.md, "Partitioned
// calls"); postgres.DB is one.
type RawStorage interface {
	EnsureEventPartitions(ctx context.Context, now time.Time, ahead int) (int, error)
	ExpireRawCalls(ctx context.Context, now time.Time) (postgres.Expired, error)
	ExpireRollups(ctx context.Context, now time.Time) (postgres.RollupExpiry, error)
}

// RawStorageArgs is the periodic partition and retention run.
type RawStorageArgs struct{}

// Kind implements river.JobArgs.
func (RawStorageArgs) Kind() string { return "raw_storage" }

// rawStoragePeriodic inserts a run at start and every interval, on the
// leader only and never while one is queued or running: one run at a
// time across all instances. A failed run is not retried; the next is.
func rawStoragePeriodic(interval time.Duration) *river.PeriodicJob {
	return onePeriodic("raw_storage", interval, RawStorageArgs{})
}

// StoreRawNow queues a partition run now, unless one is already queued or
// running: when calls land in DEFAULT (a back-fill into months without a
// partition), waiting for the hourly run would leave every read of those
// months scanning DEFAULT for up to an hour.
func (r *Runner) StoreRawNow(ctx context.Context) error {
	_, err := r.client.Insert(ctx, RawStorageArgs{}, oneAtATime())
	return err
}

// rawStorageWorker runs one partition and retention pass.
type rawStorageWorker struct {
	river.WorkerDefaults[RawStorageArgs]
	db  RawStorage
	log *zap.Logger
	now func() time.Time
}

// rawStorageTimeout bounds one run. The first rollup expiry of a project
// with years of totals takes longer than River's default minute; a run
// cut short resumes at the day it stopped (the next interval).
const rawStorageTimeout = 30 * time.Minute

// Timeout implements river.Worker.
func (w *rawStorageWorker) Timeout(*river.Job[RawStorageArgs]) time.Duration {
	return rawStorageTimeout
}

// Work creates the partitions ahead (and those of calls DEFAULT holds),
// then drops the expired ones: creation first, so DEFAULT's old calls are
// in a partition the same run may drop. Then it deletes the rollups of
// the projects whose rollup retention has expired some.
func (w *rawStorageWorker) Work(ctx context.Context, _ *river.Job[RawStorageArgs]) error {
	now := w.now()
	created, err := w.db.EnsureEventPartitions(ctx, now, RawMonthsAhead)
	if err != nil {
		return err
	}
	exp, err := w.db.ExpireRawCalls(ctx, now)
	if err != nil {
		return err
	}
	if created > 0 || len(exp.Partitions) > 0 {
		w.log.Info("raw call partitions", zap.Int("created", created), zap.Strings("dropped", exp.Partitions),
			zap.Time("expired_before", exp.Before))
	}
	roll, err := w.db.ExpireRollups(ctx, now)
	if roll.Rows > 0 {
		w.log.Info("rollups expired", zap.Int("projects", roll.Projects), zap.Int64("days", roll.Days),
			zap.Int64("rows", roll.Rows))
	}
	return err
}
