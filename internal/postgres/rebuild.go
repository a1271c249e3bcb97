package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// RebuildRollups recomputes a project's rollups (rollup_hour, rollup_day)
// from its events, with the SQL function the upgrade backfill of
// migration 0005 runs. The ingest path maintains rollups itself; call this
// after loading events behind its back (CopyEvents, a bulk loader). It runs
// in one transaction under the re-pricing lock, so reports see either the
// old or the new rollups and a re-pricing cannot interleave.
func (db *DB) RebuildRollups(ctx context.Context, projectID string) error {
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		// A rebuild after a bulk load groups millions of events: no
		// request timeout, and enough memory for the GROUP BYs not to spill.
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0; SET LOCAL work_mem = '256MB'"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, repriceLockID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT llmcost_rebuild_rollups($1::uuid)`, projectID)
		return err
	})
	return translate(err, "rollups")
}
