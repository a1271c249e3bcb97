package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/backlog"
)

// lagSQL reads, for each asynchronous merger, how much work waits per
// project and how old its oldest item is: the rollup merger's logged
// batches above the watermark (calls), the run merger's marked runs, and
// the alert drain's queued rows. Each reads a table that holds only
// what waits, so the cost follows the backlog, which back-pressure bounds.
var lagSQL = map[backlog.Merger]string{
	backlog.Rollups: `SELECT project_id::text, sum(calls)::bigint, extract(epoch FROM now() - min(stored_at))::float8
FROM ingest_batches WHERE tx >= (SELECT watermark FROM rollup_state) GROUP BY 1`,
	backlog.Runs: `SELECT project_id::text, count(*), extract(epoch FROM now() - min(marked_at))::float8
FROM runs_pending GROUP BY 1`,
	backlog.Alerts: `SELECT project_id::text, count(*), extract(epoch FROM now() - min(judged_at))::float8
FROM alerts_pending GROUP BY 1`,
}

// MergeLags reads every merger's backlog in one round trip and one
// snapshot.
func (db *DB) MergeLags(ctx context.Context) (backlog.Snapshot, error) {
	snap := backlog.Snapshot{}
	b := &pgx.Batch{}
	for _, m := range backlog.Mergers {
		b.Queue(lagSQL[m]).Query(func(rows pgx.Rows) error {
			var p backlog.ProjectLag
			var id string
			_, err := pgx.ForEachRow(rows, []any{&id, &p.Backlog, &p.Seconds}, func() error {
				snap.Add(m, id, p)
				return nil
			})
			return err
		})
	}
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	return snap, translate(err, "merge lag")
}
