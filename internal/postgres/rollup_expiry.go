package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// rollupChunk bounds the rows one expiry statement deletes (runs: the
// runs, whose steps, tools and repeats go with them).
const (
	rollupChunk = 5000
	runChunk    = 1000
)

const oneDay = 24 * time.Hour

// expiryTable is a table of per-project, time-keyed totals the rollup
// expiry deletes from (docs/scale.md, "Retention", lists them and why).
type expiryTable struct {
	name, col string
	// extra narrows the rows further ($4 is the cutoff).
	extra string
}

// rollupExpiryTables are deleted day by day in this order. The tables
// whose oldest row finds the next day to expire (rollupOldestSQL) come
// last, so a run cut short in the middle of a day finds that day again.
var rollupExpiryTables = []expiryTable{
	{name: "rollup_tag_hour", col: "bucket"},
	{name: "rollup_tag_day", col: "bucket"},
	{name: "agent_key_hour", col: "bucket"},
	// A session that began before the cutoff and went on after it keeps
	// its row: it still sums calls within the retention.
	{name: "rollup_session", col: "first_hour", extra: " AND last_hour < $4"},
	{name: "run_step_day", col: "bucket"},
	{name: "run_tool_day", col: "bucket"},
	{name: "run_tool_all_day", col: "bucket"},
	{name: "run_day", col: "bucket"},
	{name: "rollup_hour", col: "bucket"},
	{name: "rollup_day", col: "bucket"},
}

// rollupOldestSQL is the first instant of a project's oldest totals: the
// all-agents rows of the hourly and daily rollups and the runs, each the
// first entry of an index of the project.
const rollupOldestSQL = `SELECT least(
  (SELECT min(bucket) FROM rollup_hour WHERE project_id = $1 AND dim = 'agent' AND agent_name = ''),
  (SELECT min(bucket) FROM rollup_day WHERE project_id = $1 AND dim = 'agent' AND agent_name = ''),
  (SELECT min(first_ts) FROM runs WHERE project_id = $1))`

// expiryRunsSQL deletes a chunk of one day's runs (the trigger on runs
// deletes their steps, tools and repeats) and their declared outcomes.
const expiryRunsSQL = `WITH c AS MATERIALIZED (SELECT ctid AS row_id FROM runs
  WHERE project_id = $1 AND first_ts >= $2 AND first_ts < $3 LIMIT $4),
gone AS (DELETE FROM runs WHERE project_id = $1 AND first_ts >= $2 AND first_ts < $3
  AND ctid = ANY(ARRAY(SELECT row_id FROM c)) RETURNING trace_id),
declared AS (DELETE FROM outcomes o USING gone g WHERE o.project_id = $1 AND o.trace_id = g.trace_id)
SELECT count(*) FROM gone`

// RollupExpiry is what one rollup expiry run did.
type RollupExpiry struct {
	// Projects counts the projects whose cutoff moved since the last run.
	Projects int
	// Days counts the days deleted, Rows the rows (runs with their
	// children count once).
	Days, Rows int64
}

// rollupProjectsSQL lists the live projects whose rollups may expire:
// those with a rollup retention and a raw retention in force ($1, $2:
// the deployment's, 0 keeps forever).
const rollupProjectsSQL = `SELECT id, raw_retention_days, rollup_retention_days, rollup_expired_before FROM projects
WHERE deleted_at IS NULL AND coalesce(rollup_retention_days, $2) > 0 AND coalesce(raw_retention_days, $1) > 0`

// ExpireRollups deletes, for every live project with a rollup retention,
// its rollup rows, run totals and month counters older than its cutoff
// (Retention.RollupExpiredBefore), oldest day first, each day's rows of
// each table in statements of at most rollupChunk rows, and records how
// far it went (projects.rollup_expired_before) after each day. The
// month's counter is never deleted: the cutoff is at least MinRollupDays
// back.
func (db *DB) ExpireRollups(ctx context.Context, now time.Time) (RollupExpiry, error) {
	var out RollupExpiry
	rows, err := db.mergePool().Query(ctx, rollupProjectsSQL, db.RawRetentionDays, db.RollupRetentionDays)
	if err != nil {
		return out, translate(err, "projects")
	}
	type project struct {
		id  string
		ret Retention
	}
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (project, error) {
		p := project{ret: Retention{DefaultRawDays: db.RawRetentionDays, DefaultRollupDays: db.RollupRetentionDays}}
		return p, r.Scan(&p.id, &p.ret.RawDays, &p.ret.RollupDays, &p.ret.rollupsGone)
	})
	if err != nil {
		return out, translate(err, "projects")
	}
	leaves, err := db.expiryLeaves(ctx)
	if err != nil {
		return out, err
	}
	for _, p := range ps {
		cutoff := p.ret.RollupExpiredBefore(now)
		if cutoff == nil || (p.ret.rollupsGone != nil && !p.ret.rollupsGone.Before(*cutoff)) {
			// Nothing expired since the last run: the cutoff moves by
			// days, the job runs hourly.
			continue
		}
		out.Projects++
		if err := db.expireProjectRollups(ctx, p.id, *cutoff, p.ret.rollupsGone, leaves, &out); err != nil {
			return out, fmt.Errorf("project %s: %w", p.id, err)
		}
	}
	return out, nil
}

// expiryLeaves maps each table to the tables its rows live in: itself, or
// its leaf partitions (a row address names a row of one table only).
func (db *DB) expiryLeaves(ctx context.Context) (map[string][]string, error) {
	out := make(map[string][]string, len(rollupExpiryTables)+1)
	for _, t := range append([]expiryTable{weekTable}, rollupExpiryTables...) {
		rows, err := db.mergePool().Query(ctx, `SELECT format('%I', c.relname) FROM pg_partition_tree($1::regclass) p
JOIN pg_class c ON c.oid = p.relid WHERE p.isleaf ORDER BY c.relname`, t.name)
		if err != nil {
			return nil, translate(err, t.name)
		}
		if out[t.name], err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, translate(err, t.name)
		}
		if len(out[t.name]) == 0 {
			// Not partitioned: pg_partition_tree lists nothing.
			out[t.name] = []string{pgx.Identifier{t.name}.Sanitize()}
		}
	}
	return out, nil
}

// weekTable is the weekly rollups: a week's rows go once the whole week
// has expired, whatever days of it had calls.
var weekTable = expiryTable{name: "rollup_week", col: "bucket"}

// expireProjectRollups deletes one project's days before cutoff, then its
// weeks wholly before it (from the first day it deleted, or where the
// previous run stopped), then its month counters of the months wholly
// before it.
func (db *DB) expireProjectRollups(ctx context.Context, project string, cutoff time.Time, gone *time.Time,
	leaves map[string][]string, out *RollupExpiry) error {
	pool := db.mergePool()
	var first, prev time.Time
	if gone != nil {
		first = gone.UTC()
	}
	for {
		var oldest *time.Time
		if err := pool.QueryRow(ctx, rollupOldestSQL, project).Scan(&oldest); err != nil {
			return translate(err, "rollup_hour")
		}
		if oldest == nil || !oldest.Before(cutoff) {
			break
		}
		d := oldest.UTC().Truncate(oneDay)
		if !prev.IsZero() && !d.After(prev) {
			// Rows of a day already done were written meanwhile (a late
			// back-fill): the next run takes them.
			break
		}
		for _, t := range rollupExpiryTables {
			for _, leaf := range leaves[t.name] {
				n, err := deleteRange(ctx, db, leaf, t, project, d, d.Add(oneDay), cutoff)
				out.Rows += n
				if err != nil {
					return translate(err, t.name)
				}
			}
		}
		for {
			var n int64
			if err := pool.QueryRow(ctx, expiryRunsSQL, project, d, d.Add(oneDay), runChunk).Scan(&n); err != nil {
				return translate(err, "runs")
			}
			if out.Rows += n; n < runChunk {
				break
			}
		}
		if err := markRollupsGone(ctx, db, project, d.Add(oneDay)); err != nil {
			return err
		}
		out.Days++
		if prev = d; first.IsZero() || d.Before(first) {
			first = d
		}
	}
	if !first.IsZero() {
		for w := first.Truncate(analytics.WeekWidth); !w.Add(analytics.WeekWidth).After(cutoff); w = w.Add(analytics.WeekWidth) {
			for _, leaf := range leaves[weekTable.name] {
				n, err := deleteRange(ctx, db, leaf, weekTable, project, w, w.Add(analytics.WeekWidth), cutoff)
				out.Rows += n
				if err != nil {
					return translate(err, weekTable.name)
				}
			}
		}
	}
	// The month's counter is after the cutoff (MinRollupDays); the last
	// condition says so once more, on the server's clock.
	tag, err := pool.Exec(ctx, `DELETE FROM spend_month WHERE project_id = $1 AND month < $2::date
  AND month < date_trunc('month', now() AT TIME ZONE 'UTC')::date`, project, MonthStart(cutoff))
	if err != nil {
		return translate(err, "spend_month")
	}
	out.Rows += tag.RowsAffected()
	return markRollupsGone(ctx, db, project, cutoff)
}

// deleteRange deletes the rows of [from, to) of one table, a chunk at a
// time.
func deleteRange(ctx context.Context, db *DB, leaf string, t expiryTable, project string, from, to, cutoff time.Time) (int64, error) {
	sql := fmt.Sprintf(`WITH c AS MATERIALIZED (SELECT ctid AS row_id FROM %[1]s
  WHERE project_id = $1 AND %[2]s >= $2 AND %[2]s < $3%[3]s LIMIT %[4]d)
DELETE FROM %[1]s WHERE project_id = $1 AND %[2]s >= $2 AND %[2]s < $3%[3]s AND ctid = ANY(ARRAY(SELECT row_id FROM c))`,
		leaf, t.col, t.extra, rollupChunk)
	args := []any{project, from, to}
	if t.extra != "" {
		args = append(args, cutoff)
	}
	var total int64
	for {
		tag, err := db.mergePool().Exec(ctx, sql, args...)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < rollupChunk {
			return total, nil
		}
	}
}

// markRollupsGone records that the project's totals before t are gone.
func markRollupsGone(ctx context.Context, db *DB, project string, t time.Time) error {
	_, err := db.mergePool().Exec(ctx, `UPDATE projects SET rollup_expired_before = greatest(rollup_expired_before, $2)
WHERE id = $1`, project, t)
	return translate(err, "projects")
}
