package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Runs are refreshed outside the ingest transaction (migration 0020,
// docs/analytics.md "Runs"). Refreshing them inside it (RefreshRuns: every
// call of each run read again, the runs and their children replaced, each
// touched (agent, day, workflow) key recomputed from all its runs) took
// several times as long as the rest of the transaction, and a project's
// batches queue behind each other's commit (the month's spend row), so
// ingest of traced calls ran at a fraction of raw COPY's rate. The ingest
// statement now marks the runs it touched in runs_pending, one row per run
// carrying the marked calls' share of the run's guardrail totals, and:
//
//   - the run merger (MergeRuns, every second after the rollup merger)
//     refreshes the marked runs in chunks: a day key is recomputed once per
//     chunk instead of once per batch;
//   - every run report first refreshes its project's marked runs
//     (FreshRuns: one primary-key probe when there is none), so a 200 on
//     ingest still means every report includes the batch;
//   - per-run guardrail limits are judged on the runs row plus its mark
//     (WriteTx.RunTotals), read in one snapshot.
//
// A refresher locks the marks before it reads the calls and deletes them
// in the transaction that writes the runs: a batch that committed before
// the lock has its calls read, one that marks the run meanwhile waits for
// the commit and then makes a new mark, so runs row + mark never count a
// call twice nor miss one. The merger skips marks an ingest in progress
// holds (it never waits for ingest); a report waits for them, since such a
// mark may also carry a batch already acknowledged.

// pendingUpsert marks the runs of the stored calls and recorded outcomes,
// in key order (concurrent batches cannot deadlock), adding the calls'
// totals to an existing mark.
const pendingUpsert = `, rp AS (
  INSERT INTO runs_pending (project_id, trace_id, calls, cost_nano, tool_calls, has_workflow, first_ts,
    first_event_id, first_agent, last_end)
  SELECT project_id, trace_id, sum(n)::bigint, sum(cost_nano)::bigint, sum(tool)::bigint, bool_or(wf),
    min(ts), (array_agg(event_id ORDER BY ts, event_id COLLATE "C"))[1],
    (array_agg(agent_name ORDER BY ts, event_id COLLATE "C"))[1], max(last_end)
  FROM (SELECT project_id, trace_id, 1 AS n, cost_nano, (coalesce(tool_name, '') <> '')::int AS tool,
      coalesce(workflow, '') <> '' AS wf, ts, event_id, agent_name,
      ts + coalesce(latency_ms, 0) * interval '1 millisecond' AS last_end FROM ev
    UNION ALL SELECT project_id, trace_id, 0, 0, 0, false, NULL, NULL, NULL, NULL FROM oc) k
  WHERE trace_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (project_id, trace_id) DO UPDATE SET calls = runs_pending.calls + excluded.calls,
    cost_nano = runs_pending.cost_nano + excluded.cost_nano, tool_calls = runs_pending.tool_calls + excluded.tool_calls,
    has_workflow = runs_pending.has_workflow OR excluded.has_workflow,
    first_ts = CASE WHEN ` + pendingEarlier + ` THEN excluded.first_ts ELSE runs_pending.first_ts END,
    first_event_id = CASE WHEN ` + pendingEarlier + ` THEN excluded.first_event_id ELSE runs_pending.first_event_id END,
    first_agent = CASE WHEN ` + pendingEarlier + ` THEN excluded.first_agent ELSE runs_pending.first_agent END,
    last_end = greatest(runs_pending.last_end, excluded.last_end), marked_at = excluded.marked_at
  RETURNING 1
)`

// pendingEarlier: the batch's first call of the run precedes the mark's
// (or the mark has none); false when the batch has no call of the run.
const pendingEarlier = `(runs_pending.first_ts IS NULL AND excluded.first_ts IS NOT NULL
      OR (excluded.first_ts, excluded.first_event_id COLLATE "C") < (runs_pending.first_ts, runs_pending.first_event_id COLLATE "C"))`

// pendingChunk is how many marked runs one refresh transaction takes. A
// chunk costs about what its runs cost (the daily rollups change by the
// difference, run_delta.go), and a run report or an ingest that needs one
// of its marks waits for its commit, so chunks are kept short.
const pendingChunk = 500

// pendingSQL locks, for the merger, up to $1 marked runs after the key
// ($2, $3), in key order, marked $4 seconds ago or earlier, skipping those
// an ingest in progress holds: one pass of MergeRuns visits each mark at
// most once, however fast ingest marks runs again.
const pendingSQL = `SELECT project_id::text, trace_id FROM runs_pending
WHERE (project_id, trace_id) > ($2::uuid, $3::text) AND marked_at <= now() - make_interval(secs => $4)
ORDER BY project_id, trace_id LIMIT $1 FOR UPDATE SKIP LOCKED`

// markInWindow: the mark m can change a report over the runs whose first
// call lies in [$2, $3) (NULL $2: any). A run's first call after the
// refresh is the earlier of its row's and its mark's, so a run whose row
// and mark both lie outside the window is outside it before and after
// (a run that moves out of the window has its row inside, and one that
// moves in has its mark inside).
const markInWindow = `($2::timestamptz IS NULL OR (m.first_ts >= $2 AND m.first_ts < $3::timestamptz)
    OR EXISTS (SELECT 1 FROM runs r WHERE r.project_id = m.project_id AND r.trace_id = m.trace_id
      AND r.first_ts >= $2 AND r.first_ts < $3::timestamptz))`

// noKey sorts before every run key.
var noKey = RunKey{ProjectID: "00000000-0000-0000-0000-000000000000"}

// lockMarksSQL locks the marks of runs about to be refreshed, in key
// order; the refresh deletes them (deleteMarksSQL) before it commits.
const lockMarksSQL = `SELECT count(*) FROM (SELECT 1 FROM runs_pending m
  JOIN unnest($1::uuid[], $2::text[]) AS u(p, t) ON m.project_id = u.p AND m.trace_id = u.t
  ORDER BY m.project_id, m.trace_id FOR UPDATE OF m) s`

const deleteMarksSQL = `DELETE FROM runs_pending m USING unnest($1::uuid[], $2::text[]) AS u(p, t)
WHERE m.project_id = u.p AND m.trace_id = u.t`

// refreshPending refreshes one chunk of settled marked runs after the key
// after, and answers the keys it took.
func refreshPending(ctx context.Context, tx pgx.Tx, after RunKey, settled float64) ([]RunKey, error) {
	rows, err := tx.Query(ctx, pendingSQL, pendingChunk, after.ProjectID, after.TraceID, settled)
	if err != nil {
		return nil, err
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (RunKey, error) {
		var k RunKey
		return k, r.Scan(&k.ProjectID, &k.TraceID)
	})
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	return keys, RefreshRuns(ctx, tx, keys)
}

// window bounds the runs a read is for by their first call (nil start:
// every run).
type window struct{ start, end *time.Time }

// MergeRuns refreshes the marked runs in one pass in key order, a chunk per
// transaction, leaving for a later merge those an ingest in progress holds
// and those marked less than settled ago: a run still being written to is
// refreshed once it has settled rather than after every batch, and ingest
// seldom waits for a merge holding its mark. The extension runs it every
// second (settled one second, or none while it is behind) beside
// MergeRollups; tests call it (settled 0) when they read the run tables
// directly. Several instances may run it at once: each run is refreshed
// by one of them. It answers how many runs it refreshed.
func (db *DB) MergeRuns(ctx context.Context, settled time.Duration) (int, error) {
	total, after := 0, noKey
	for {
		var keys []RunKey
		err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
			var err error
			keys, err = refreshPending(ctx, tx, after, settled.Seconds())
			return err
		})
		total += len(keys)
		if err != nil || len(keys) < pendingChunk {
			return total, translate(err, "runs")
		}
		after = keys[len(keys)-1]
	}
}

// FreshRuns refreshes the project's marked runs, if any, before a read of
// the run tables: the read then includes every batch acknowledged before
// it. When none is marked it costs one index probe.
func (db *DB) FreshRuns(ctx context.Context, projectID string) error {
	return db.freshRuns(ctx, projectID, window{})
}

// FreshRunsIn is FreshRuns for a read of the runs whose first call lies in
// [start, end): it refreshes only the marks that can change such a read,
// so a report over last week does not wait for a back-fill of last
// month's runs.
func (db *DB) FreshRunsIn(ctx context.Context, projectID string, start, end time.Time) error {
	return db.freshRuns(ctx, projectID, window{&start, &end})
}

// freshRuns refreshes the project's marks in w that exist when it starts,
// chunk by chunk. Marks made later belong to batches acknowledged after
// the read began, which it need not include: walking the marks in key
// order instead followed a stream's new marks ahead of it for as long as
// the stream lasted.
//
// It goes twice over them. First it takes, without waiting, the marks no
// one holds; then it waits for the holders of the rest (the run merger's
// chunk, another read's, an ingest in progress) and refreshes what they
// left marked. Waiting at the first mark held instead left the read idle
// for as long as the merger's chunk took, its other marks untouched:
// during a back-fill, seconds of a 90-day run report went to that wait
// (docs/performance.md "Sustained ingest").
func (db *DB) freshRuns(ctx context.Context, projectID string, w window) error {
	rows, err := db.Pool.Query(ctx, `SELECT m.trace_id FROM runs_pending m WHERE m.project_id = $1 AND `+
		markInWindow+` ORDER BY m.trace_id`, projectID, w.start, w.end)
	if err != nil {
		return translate(err, "runs")
	}
	traces, err := pgx.CollectRows(rows, pgx.RowTo[string])
	var held []string
	for _, lock := range []string{skipHeld, waitForHeld} {
		for len(traces) > 0 && err == nil {
			chunk := traces[:min(len(traces), pendingChunk)]
			traces = traces[len(chunk):]
			err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
				left, err := refreshMarked(ctx, tx, projectID, chunk, lock)
				held = append(held, left...)
				return err
			})
		}
		traces, held = held, nil
	}
	return translate(err, "runs")
}

// The row-lock clauses of stillMarkedSQL: take only the marks no one
// holds, or wait for their holders.
const (
	skipHeld    = "FOR UPDATE OF m SKIP LOCKED"
	waitForHeld = "FOR UPDATE OF m"
)

// stillMarkedSQL locks, with the row-lock clause appended, the marks of
// project $1's runs $2 that are still there (the merger may have
// refreshed some meanwhile), in key order.
const stillMarkedSQL = `SELECT m.trace_id FROM runs_pending m
WHERE m.project_id = $1 AND m.trace_id = ANY($2::text[]) ORDER BY m.trace_id `

// refreshMarked refreshes those of the project's runs traces that are
// still marked and that lock (skipHeld or waitForHeld) takes, and answers
// the others of traces: held by another transaction (skipHeld only), or
// no longer marked.
func refreshMarked(ctx context.Context, tx pgx.Tx, projectID string, traces []string, lock string) ([]string, error) {
	rows, err := tx.Query(ctx, stillMarkedSQL+lock, projectID, traces)
	if err != nil {
		return nil, err
	}
	marked, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	taken := make(map[string]bool, len(marked))
	keys := make([]RunKey, len(marked))
	for i, t := range marked {
		keys[i], taken[t] = RunKey{ProjectID: projectID, TraceID: t}, true
	}
	var left []string
	for _, t := range traces {
		if !taken[t] {
			left = append(left, t)
		}
	}
	return left, RefreshRuns(ctx, tx, keys)
}

// MarkedRuns counts a project's runs marked by ingest and not yet
// refreshed by the run merger.
func (db *DB) MarkedRuns(ctx context.Context, projectID string) (int64, error) {
	var n int64
	err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM runs_pending WHERE project_id = $1`, projectID).Scan(&n)
	return n, translate(err, "runs")
}
