package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// rebuildChunk is how many runs one rebuild step reads and writes.
const rebuildChunk = 5000

// RebuildRuns recomputes a project's run tables from its events, for bulk
// loads that bypass the ingest path (CopyEvents) and for the upgrade
// backfill. One transaction under the re-pricing lock: reports see the old
// or the new rows. It must not run while the project ingests.
func (db *DB) RebuildRuns(ctx context.Context, projectID string) error {
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, repriceLockID); err != nil {
			return err
		}
		// SET LOCAL work_mem: the rollup rebuild groups every run.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return err
		}
		// Every run is rebuilt from its calls: the marks are done with.
		if _, err := tx.Exec(ctx, `DELETE FROM runs WHERE project_id = $1`, projectID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM runs_pending WHERE project_id = $1`, projectID); err != nil {
			return err
		}
		for last := ""; ; {
			keys, err := nextTraces(ctx, tx, projectID, last)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				b := &pgx.Batch{}
				queueDayRebuild(b, projectID)
				return tx.SendBatch(ctx, b).Close()
			}
			p, t := keyArrays(keys)
			built, err := readRuns(ctx, tx, runCallsSQL, p, t)
			if err != nil {
				return err
			}
			outcomes := map[RunKey]*bool{}
			b := &pgx.Batch{}
			queueOutcomes(b, p, t, outcomes)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			for i := range built {
				built[i].Outcome = outcomes[built[i].RunKey]
			}
			b = &pgx.Batch{}
			queueRunInserts(b, built, nil)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			last = keys[len(keys)-1].TraceID
		}
	})
	return translate(err, "runs")
}

// nextTraces lists the project's next traced runs after trace last.
func nextTraces(ctx context.Context, tx pgx.Tx, projectID, last string) ([]RunKey, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT trace_id FROM events
WHERE project_id = $1 AND trace_id IS NOT NULL AND trace_id > $2 ORDER BY trace_id LIMIT $3`,
		projectID, last, rebuildChunk)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (RunKey, error) {
		k := RunKey{ProjectID: projectID}
		return k, r.Scan(&k.TraceID)
	})
}

// BackfillRuns fills the run tables of a database that held traced events
// before migration 0010, project by project; it runs once (a
// pending_backfills row says it is due) and answers how many projects it
// rebuilt.
func (db *DB) BackfillRuns(ctx context.Context) (int, error) {
	var due bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pending_backfills WHERE name = 'runs')`).
		Scan(&due); err != nil || !due {
		return 0, translate(err, "runs")
	}
	rows, err := db.Pool.Query(ctx, `SELECT id::text FROM projects WHERE deleted_at IS NULL ORDER BY id`)
	if err != nil {
		return 0, translate(err, "runs")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, translate(err, "runs")
	}
	for _, id := range ids {
		if err := db.RebuildRuns(ctx, id); err != nil {
			return 0, err
		}
	}
	_, err = db.Pool.Exec(ctx, `DELETE FROM pending_backfills WHERE name = 'runs'`)
	return len(ids), translate(err, "runs")
}
