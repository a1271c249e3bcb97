package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/llmcost/llmcost/internal/catalogsync"
)

// SyncArgs is the periodic price catalogue sync.
type SyncArgs struct{}

// Kind implements river.JobArgs.
func (SyncArgs) Kind() string { return "catalogue_sync" }

// syncPeriodic inserts a sync at start and every interval. Only the elected
// leader among the instances inserts periodic jobs, and a sync is not
// inserted while another is still queued or running, so one instance at a
// time syncs. A failed sync is not retried: the next period is the retry.
func syncPeriodic(interval time.Duration) *river.PeriodicJob {
	return onePeriodic("catalogue_sync", interval, SyncArgs{})
}

// syncWorker runs one sync on this instance's Syncer; the others load the
// result through catalogsync's Follow.
type syncWorker struct {
	river.WorkerDefaults[SyncArgs]
	sync    *catalogsync.Syncer
	timeout time.Duration
}

// Timeout implements river.Worker: the fetch's own bound plus time to
// store the result.
func (w *syncWorker) Timeout(*river.Job[SyncArgs]) time.Duration { return w.timeout + time.Minute }

// Work syncs; the outcome, failures included, is in the sync status.
func (w *syncWorker) Work(ctx context.Context, _ *river.Job[SyncArgs]) error {
	if w.sync != nil {
		_ = w.sync.SyncScheduled(ctx)
	}
	return nil
}
