package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/llmcost/llmcost/internal/postgres"
)

// timeIndexes lead with (project_id, time) on the tables the reports read
// by window: the rollups, the run rollups, the sessions, the runs and their
// step and tool rows.
var timeIndexes = []string{
	"rollup_hour_project_bucket_idx", "rollup_day_project_bucket_idx", "rollup_week_project_bucket_idx",
	"rollup_tag_hour_project_bucket_idx", "rollup_tag_day_project_bucket_idx", "agent_key_hour_project_bucket_idx",
	"rollup_session_first_idx", "run_day_key_idx", "run_step_day_key_idx", "run_tool_day_key_idx",
	"run_tool_all_day_project_bucket_idx", "runs_project_first_idx", "run_steps_project_first_idx",
	"run_tools_project_first_idx",
}

// layOutByTime rewrites each table of timeIndexes in the order of its time
// index (CLUSTER, partition by partition where it is partitioned). The
// bulk rebuilds insert a table's rows in their GROUP BY's order, which
// scatters every day over the whole table: a 90-day report then reads
// pages holding every day of the history, and reads more of them the
// longer the history, where the mergers append rows as the calls arrive,
// a day's rows on the pages written that day. Laid out by time, a bulk
// load reads as a database that grew by ingest.
func layOutByTime(ctx context.Context, db *postgres.DB) error {
	var pairs [][2]string
	for _, index := range timeIndexes {
		rows, err := db.Pool.Query(ctx, `SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text FROM pg_index i
WHERE i.indexrelid IN (SELECT relid FROM pg_partition_tree($1::regclass) WHERE isleaf)
  OR (i.indexrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_partition_tree($1::regclass)))`, index)
		if err != nil {
			return fmt.Errorf("%s: %w", index, err)
		}
		these, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
			var p [2]string
			return p, r.Scan(&p[0], &p[1])
		})
		if err != nil || len(these) == 0 {
			return fmt.Errorf("%s: %d tables (%v)", index, len(these), err)
		}
		pairs = append(pairs, these...)
	}
	// Two at a time: each CLUSTER is one backend's sort on one core, and
	// each locks only its own table or partition.
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, p := range pairs {
		g.Go(func() error {
			if _, err := db.Pool.Exec(ctx, "CLUSTER "+pgx.Identifier{p[0]}.Sanitize()+" USING "+pgx.Identifier{p[1]}.Sanitize()); err != nil {
				return fmt.Errorf("cluster %s using %s: %w", p[0], p[1], err)
			}
			return nil
		})
	}
	return g.Wait()
}
