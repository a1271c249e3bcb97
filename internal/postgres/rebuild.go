package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// RebuildRollups recomputes a project's rollups (hourly, daily, weekly,
// the session totals of migration 0014 from the hourly rows, the agents'
// hourly users and sessions of migration 0019, and when each agent last
// used each tool and model, and the declared tags' rollups) from its
// events, with the SQL function the upgrade backfill of migration
// 0005 runs; call it after loading events behind the merger's back
// (CopyEvents, a bulk loader), where recomputing is far cheaper than
// merging millions of tail events. In one transaction under the merger's
// lock it merges every other project's tail, rebuilds this project from
// its events below the current xmin, and moves the watermark there, so
// reports see either the old or the new rollups, each with its tail.
func (db *DB) RebuildRollups(ctx context.Context, projectID string) error {
	return db.rebuildRollups(ctx, projectID, true)
}

// RebuildCallRollups is RebuildRollups without the runs' side: the runs
// keep their tags and their daily rollups are not recomputed. It is for a
// caller that calls RebuildRuns next (a bulk loader), which computes every
// run again, its tags and rollups included: RebuildRollups would first set
// every run's tags and recompute their rollups, for RebuildRuns to delete
// and compute them again.
func (db *DB) RebuildCallRollups(ctx context.Context, projectID string) error {
	return db.rebuildRollups(ctx, projectID, false)
}

func (db *DB) rebuildRollups(ctx context.Context, projectID string, runs bool) error {
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		res, err := mergeLocked(ctx, tx, &projectID)
		if err != nil {
			return err
		}
		// A rebuild after a bulk load groups millions of events: no
		// request timeout, and enough memory for the GROUP BYs not to spill.
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0; SET LOCAL work_mem = '256MB'"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT llmcost_rebuild_rollups($1::uuid, $2)`, projectID, res.Watermark); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT llmcost_rebuild_agent_keys($1::uuid, $2)`, projectID, res.Watermark); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, lastSeenRebuild, pgx.StrictNamedArgs{"project_id": projectID, "below": res.Watermark}); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `SELECT llmcost_rebuild_session_rollups($1::uuid)`, projectID); err != nil {
			return err
		}
		return rebuildTags(ctx, tx, projectID, res.Watermark, runs)
	})
	return translate(err, "rollups")
}
