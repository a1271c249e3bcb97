package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Runs are refreshed outside the ingest transaction (migration 0020,
// docs/analytics.md "Runs"). Refreshing them inside it (RefreshRuns: run
// locks, every call of each run read again, the runs and their children
// replaced, each touched (agent, day, workflow) key recomputed from all its
// runs) took about 130 ms of a traced 1,000-call batch, four times the rest
// of the transaction, and a project's batches queue behind each other's
// commit (the month's spend row), so ingest of traced calls ran at a
// quarter of raw COPY. The ingest statement now marks the runs it touched
// in runs_pending (one row per run, stamped with the marking transaction's
// id), and:
//
//   - the run merger (MergeRuns, every second beside the rollup merger)
//     refreshes the marked runs in chunks: a day key is recomputed once per
//     chunk instead of once per batch;
//   - every run report first refreshes its project's marked runs
//     (FreshRuns: one primary-key probe when there is none), so a 200 on
//     ingest still means every report includes the batch;
//   - per-run guardrail limits judge totals computed from the calls of the
//     batch's runs in the ingest transaction (WriteTx.RunTotals).
//
// A mark is removed only by the transaction that refreshed its run, and
// only while it still holds the id the refresher read before reading the
// calls: a batch that touched the run meanwhile has changed the id (or holds
// the row, which the removal skips), so its calls, possibly committed after
// the refresher read, are refreshed again later. Refreshers take the runs'
// advisory locks (RefreshRuns), so a merger and a report refreshing the same
// run queue, and the second reads what the first committed.

// pendingUpsert marks the runs of the stored calls and recorded outcomes,
// in key order (concurrent batches cannot deadlock). A mark that exists gets
// this transaction's id: a refresher reading the old id keeps it.
const pendingUpsert = `, rp AS (
  INSERT INTO runs_pending (project_id, trace_id)
  SELECT DISTINCT project_id, trace_id FROM (SELECT project_id, trace_id FROM ev UNION ALL
    SELECT project_id, trace_id FROM oc) k
  WHERE trace_id IS NOT NULL ORDER BY 1, 2
  ON CONFLICT (project_id, trace_id) DO UPDATE SET tx = excluded.tx
  RETURNING 1
)`

// pendingChunk is how many marked runs one refresh transaction takes.
const pendingChunk = 2000

// pendingSQL lists marked runs of project $1 (NULL: every project) after
// the key ($3, $4) in key order: one pass of refreshAll visits each mark at
// most once, however fast ingest marks runs again.
const pendingSQL = `SELECT project_id::text, trace_id, tx FROM runs_pending
WHERE ($1::uuid IS NULL OR project_id = $1) AND (project_id, trace_id) > ($3::uuid, $4::text)
ORDER BY project_id, trace_id LIMIT $2`

// noKey sorts before every run key.
var noKey = RunKey{ProjectID: "00000000-0000-0000-0000-000000000000"}

// unmarkSQL removes the marks that still carry the id read before the
// refresh; one held by an ingest in progress is skipped (not waited for).
const unmarkSQL = `WITH m AS (
  SELECT r.ctid FROM runs_pending r
  JOIN unnest($1::uuid[], $2::text[], $3::bigint[]) AS u(p, t, x) ON r.project_id = u.p AND r.trace_id = u.t
  WHERE r.tx = u.x
  FOR UPDATE OF r SKIP LOCKED
)
DELETE FROM runs_pending r USING m WHERE r.ctid = m.ctid`

// refreshPending refreshes one chunk of project's marked runs (nil: any
// project's) after the key after, and answers the keys it took.
func refreshPending(ctx context.Context, tx pgx.Tx, project *string, after RunKey) ([]RunKey, error) {
	rows, err := tx.Query(ctx, pendingSQL, project, pendingChunk, after.ProjectID, after.TraceID)
	if err != nil {
		return nil, err
	}
	var keys []RunKey
	var marks []int64
	var k RunKey
	var mark int64
	if _, err := pgx.ForEachRow(rows, []any{&k.ProjectID, &k.TraceID, &mark}, func() error {
		keys, marks = append(keys, k), append(marks, mark)
		return nil
	}); err != nil || len(keys) == 0 {
		return nil, err
	}
	if err := RefreshRuns(ctx, tx, keys); err != nil {
		return nil, err
	}
	p, t := keyArrays(keys)
	_, err = tx.Exec(ctx, unmarkSQL, p, t, marks)
	return keys, err
}

// refreshAll refreshes the marked runs (of project, nil: all) in one pass
// in key order, a chunk per transaction.
func (db *DB) refreshAll(ctx context.Context, project *string) (int, error) {
	total, after := 0, noKey
	for {
		var keys []RunKey
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			var err error
			keys, err = refreshPending(ctx, tx, project, after)
			return err
		})
		total += len(keys)
		if err != nil || len(keys) < pendingChunk {
			return total, translate(err, "runs")
		}
		after = keys[len(keys)-1]
	}
}

// MergeRuns refreshes every marked run, in chunks; the extension runs it
// every second after MergeRollups, and tests call it when they read the run
// tables directly. Several instances may run it at once: they queue on the
// runs' locks and each run ends current. It answers how many runs it
// refreshed.
func (db *DB) MergeRuns(ctx context.Context) (int, error) {
	return db.refreshAll(ctx, nil)
}

// FreshRuns refreshes the project's marked runs, if any, before a read of
// the run tables: the read then includes every batch acknowledged before
// it. When none is marked it costs one index probe.
func (db *DB) FreshRuns(ctx context.Context, projectID string) error {
	var marked bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs_pending WHERE project_id = $1)`,
		projectID).Scan(&marked); err != nil || !marked {
		return translate(err, "runs")
	}
	_, err := db.refreshAll(ctx, &projectID)
	return err
}
