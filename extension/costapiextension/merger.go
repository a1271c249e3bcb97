package costapiextension

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// merger folds newly stored events into the analytics rollups every
// interval (postgres.MergeRollups), then refreshes the runs ingest marked
// (postgres.MergeRuns). Reports are exact without it (they read the
// unmerged tail raw, and run reports refresh their project's marked runs
// first); it keeps that work small. Several instances on one database each
// run one: they take turns on the merger's lock and on the runs' locks.
type merger struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startMerger runs the merge loop on db until stop.
func startMerger(db *postgres.DB, every time.Duration, log *zap.Logger) *merger {
	ctx, cancel := context.WithCancel(context.Background())
	m := &merger{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		failing := false
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			failing = mergeOnce(ctx, db, log, failing)
		}
	}()
	return m
}

// mergeOnce merges and summarizes the new tail, logging the first failure
// of a run of failures and the recovery, not every tick. It returns
// whether this merge failed.
func mergeOnce(ctx context.Context, db *postgres.DB, log *zap.Logger, failing bool) bool {
	_, err := db.MergeRollups(ctx)
	if err == nil {
		// A summary the vacuum could not give now comes with the next tick.
		_ = db.SummarizeTail(ctx)
		_, err = db.MergeRuns(ctx)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return failing
	case err != nil && !failing:
		log.Warn("merging events into the analytics rollups or runs failed; reports stay exact, retrying", zap.Error(err))
	case err == nil && failing:
		log.Info("merging events into the analytics rollups and runs works again")
	}
	return err != nil
}

// stop ends the loop and waits for a merge in progress to finish or roll
// back (its context is cancelled).
func (m *merger) stop() {
	if m == nil {
		return
	}
	m.cancel()
	<-m.done
}
