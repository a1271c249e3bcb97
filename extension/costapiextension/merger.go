package costapiextension

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/postgres"
)

// merger runs two loops every interval: one folds newly stored events into
// the analytics rollups (postgres.MergeRollups), the other refreshes the
// runs ingest marked (postgres.MergeRuns). Reports are exact without them
// (they read the unmerged tail raw, and run reports refresh their
// project's marked runs first); they keep that work small. Two loops, so a
// long run refresh never holds the rollups back. Several instances on one
// database each run them: they take turns on the merger's lock and on the
// marks' row locks. Once the job runner is up, a third loop (also) drains
// the alerts ingest queued (breaches and budget thresholds).
type merger struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// lagEvery is how often the mergers' lag is read for the gate: often
// enough that a burst is refused within a fraction of the bound (at
// 10,000 calls a second, 5,000 calls), seldom enough to cost nothing.
const lagEvery = 500 * time.Millisecond

// statsEvery is how often the partitions of raw calls that grew are
// analyzed (postgres.AnalyzeGrownPartitions): a back-fill's month goes
// from empty to a million calls in a minute, and a plan made from a
// minute-old picture of it can read every row of the project.
const statsEvery = 10 * time.Second

// startMerger runs the merge loops on db until stop, and keeps gate's
// snapshot of their lag current.
func startMerger(db *postgres.DB, every time.Duration, log *zap.Logger, gate *backlog.Gate) *merger {
	ctx, cancel := context.WithCancel(context.Background())
	m := &merger{ctx: ctx, cancel: cancel}
	behind := func(mg backlog.Merger, over int64) bool { return gate.Snapshot().Lags[mg].Backlog > over }
	rollups := func(ctx context.Context) (bool, error) {
		res, err := db.MergeRollups(ctx)
		if err == nil {
			// A summary the vacuum could not give now comes with the next tick.
			_ = db.SummarizeTail(ctx, res.Span)
		}
		return res.Steps > 0 && behind(backlog.Rollups, busyCalls), err
	}
	runs := func(ctx context.Context) (bool, error) {
		n, err := db.MergeRuns(ctx, runSettle(behind(backlog.Runs, busyRuns)))
		return n > 0 && behind(backlog.Runs, busyRuns), err
	}
	m.wg.Go(func() { loop(ctx, every, log, "events into the analytics rollups", rollups) })
	m.wg.Go(func() { loop(ctx, every, log, "marked runs into the run tables", runs) })
	m.also(min(every, lagEvery), log, "lag of the mergers (for back-pressure)", func(ctx context.Context) error {
		began := time.Now()
		snap, err := db.MergeLags(ctx)
		if err == nil {
			snap.Taken = began
			gate.Set(snap)
		}
		return err
	})
	m.also(statsEvery, log, "statistics of the raw calls' partitions", func(ctx context.Context) error {
		_, err := db.AnalyzeGrownPartitions(ctx, 0)
		return err
	})
	return m
}

// A merger that finds more than this waiting after a round starts the next
// at once instead of at the next tick: under sustained ingest it merges
// continuously, and the backlog (which every report reads raw) stays a
// round's worth; below it, a round a tick batches the upserts of a
// second's calls.
const (
	busyCalls = 5_000
	busyRuns  = 500
)

// runSettle is how long a run's mark waits before the run merger takes it.
// Waiting a second lets the batches of a run being written fold into one
// refresh; but every run report refreshes the marks of its window itself
// first, so while the merger is behind (busy), marks that wait only make
// the reports do the merger's work: it then takes every mark at once.
func runSettle(busy bool) time.Duration {
	if busy {
		return 0
	}
	return time.Second
}

// also runs one more loop beside the merges, stopped with them.
func (m *merger) also(every time.Duration, log *zap.Logger, what string, fn func(context.Context) error) {
	m.wg.Go(func() {
		loop(m.ctx, every, log, what, func(ctx context.Context) (bool, error) { return false, fn(ctx) })
	})
}

// loop calls merge every interval until ctx ends, and again at once while
// merge says it is busy (work is still waiting).
func loop(ctx context.Context, every time.Duration, log *zap.Logger, what string, merge func(context.Context) (bool, error)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing, busy := false, false
	for {
		if !busy {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		var err error
		busy, err = merge(ctx)
		failing = logFailure(ctx, log, what, err, failing)
		busy = busy && err == nil
	}
}

// logFailure logs the first failure of a run of failures and the
// recovery, not every tick. It returns whether this merge failed.
func logFailure(ctx context.Context, log *zap.Logger, what string, err error, failing bool) bool {
	switch {
	case err != nil && ctx.Err() != nil:
		return failing
	case err != nil && !failing:
		log.Warn("merging "+what+" failed; reports stay exact, retrying", zap.Error(err))
	case err == nil && failing:
		log.Info("merging " + what + " works again")
	}
	return err != nil
}

// stop ends the loops and waits for merges in progress to finish or roll
// back (their context is cancelled).
func (m *merger) stop() {
	if m == nil {
		return
	}
	m.cancel()
	m.wg.Wait()
}
