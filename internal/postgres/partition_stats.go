package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Raw calls' partitions fill fast: a back-fill writes a month's partition
// from empty to millions of rows in minutes, and the DEFAULT partition
// takes whatever lands outside the months created. Autovacuum analyzes a
// table once a tenth of it changed, looking at most once a minute, so for
// a while the planner believes such a partition empty or a project absent
// from it: a read then walks a project's every row in DEFAULT through the
// primary key instead of its (project_id, ts) index, and a lookup by
// trace_id scans a whole partition once per run. AnalyzeGrownPartitions
// keeps their statistics close to their contents.

// grownPartitionsSQL lists the partitions of events with more rows
// changed since their last ANALYZE than @min and than a tenth of their
// rows (what autovacuum waits for, without its minute of latency).
const grownPartitionsSQL = `SELECT format('%I.%I', s.schemaname, s.relname)
FROM pg_inherits i JOIN pg_stat_user_tables s ON s.relid = i.inhrelid
WHERE i.inhparent = 'events'::regclass
  AND s.n_mod_since_analyze >= greatest($1::bigint, s.n_live_tup / 10)
ORDER BY s.n_mod_since_analyze DESC`

// statsLockSQL lets one instance at a time analyze (class 4246 of the
// two-key advisory locks): the others skip the round.
const statsLockSQL = `SELECT pg_try_advisory_xact_lock(4246, 0)`

// MinPartitionChanges is how many changed rows make a partition worth
// analyzing again, however small it is.
const MinPartitionChanges = 10_000

// AnalyzeGrownPartitions analyzes the partitions of events whose rows
// changed by at least min (MinPartitionChanges when 0) and a tenth since
// their last analysis, and answers how many it analyzed. One instance
// does it at a time; the others answer 0 at once.
func (db *DB) AnalyzeGrownPartitions(ctx context.Context, min int64) (int, error) {
	if min <= 0 {
		min = MinPartitionChanges
	}
	n := 0
	err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, statsLockSQL).Scan(&mine); err != nil || !mine {
			return err
		}
		rows, err := tx.Query(ctx, grownPartitionsSQL, min)
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, name := range names {
			// The name comes from the catalogue, quoted by format('%I').
			if _, err := tx.Exec(ctx, "ANALYZE "+name); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, translate(err, "partition statistics")
}
