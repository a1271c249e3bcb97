package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/semconv"
)

// This file serves the analytics benchmark's bulk loader: it fills the
// tables the ingest path fills, far faster than ingest, and measures them.

// OpenBulk is Open for bulk loading and maintenance: without Open's
// statement timeout, since a load, a rollup rebuild or a VACUUM of millions
// of rows runs for minutes.
func OpenBulk(ctx context.Context, url string, maxConns int32) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	cfg.MaxConns = maxConns
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "0"
	cfg.AfterConnect = useFastArrays
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &DB{Pool: pool}, nil
}

// RecordedOutcome is an outcome with the time it was declared.
type RecordedOutcome struct {
	semconv.Outcome
	RecordedAt time.Time
}

// CopyOutcomes loads outcomes with COPY. Like CopyEvents it does not
// deduplicate: it is for loading a fresh project.
func (db *DB) CopyOutcomes(ctx context.Context, outcomes []RecordedOutcome) (int64, error) {
	rows := make([][]any, len(outcomes))
	for i, o := range outcomes {
		var label any
		if o.Label != "" {
			label = o.Label
		}
		rows[i] = []any{o.ProjectID, o.TraceID, o.Success, label, o.RecordedAt}
	}
	n, err := db.Pool.CopyFrom(ctx, pgx.Identifier{"outcomes"},
		[]string{"project_id", "trace_id", "success", "label", "recorded_at"}, pgx.CopyFromRows(rows))
	return n, translate(err, "outcomes")
}

// VacuumAnalyze rebuilds the events' BRIN index on tx, then vacuums and
// analyzes the whole database after a bulk load, so the planner has
// statistics and index-only scans find an all-visible table.
func (db *DB) VacuumAnalyze(ctx context.Context) error {
	// After the bulk loader's two concurrent COPY streams (10 M rows, the
	// autovacuum's autosummarize requests mostly dropped: "was not
	// recorded"), PostgreSQL 15 once left 11,042 of the events' 16,338 BRIN
	// ranges on tx matching every query, although each had a summary:
	// every read of the tail (tx ≥ the watermark) then read two thirds of
	// the table, where the rebuilt index reads a few pages. The loader
	// rebuilds it before the vacuum, whatever the cause.
	if _, err := db.Pool.Exec(ctx, `REINDEX INDEX events_tx_brin`); err != nil {
		return translate(err, "database")
	}
	_, err := db.Pool.Exec(ctx, `VACUUM (ANALYZE)`)
	return translate(err, "database")
}

// CountEvents counts a project's events.
func (db *DB) CountEvents(ctx context.Context, projectID string) (int64, error) {
	var n int64
	err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1`, projectID).Scan(&n)
	return n, translate(err, "events")
}

// TableSize is a table's disk footprint, indexes and TOAST included.
type TableSize struct {
	Name  string
	Bytes int64
	Rows  int64 // the planner's estimate
}

// TableSizes lists the tables of the public schema, largest first; a
// partitioned table (rollup_day, migration 0025) counts its partitions'
// pages and rows, which are not listed on their own.
func (db *DB) TableSizes(ctx context.Context) ([]TableSize, error) {
	// pg_partition_tree lists nothing for a table that is not partitioned.
	rows, err := db.Pool.Query(ctx, `SELECT c.relname,
		  coalesce((SELECT sum(pg_total_relation_size(t.relid)) FROM pg_partition_tree(c.oid) t)::bigint,
		    pg_total_relation_size(c.oid)),
		  coalesce((SELECT sum(greatest(l.reltuples, 0)) FROM pg_partition_tree(c.oid) t
		    JOIN pg_class l ON l.oid = t.relid WHERE t.isleaf)::bigint, greatest(c.reltuples, 0)::bigint)
		FROM pg_class c WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relnamespace = 'public'::regnamespace
		ORDER BY 2 DESC, 1`)
	if err != nil {
		return nil, translate(err, "tables")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TableSize, error) {
		var t TableSize
		return t, r.Scan(&t.Name, &t.Bytes, &t.Rows)
	})
	return out, translate(err, "tables")
}

// NaiveSpendByAgent is the report the rollups replace, computed the naive
// way over raw events: spend, calls and tokens per agent since a time. The
// benchmark times it to show what the rollups buy; it returns the number of
// agents.
func (db *DB) NaiveSpendByAgent(ctx context.Context, projectID string, since time.Time) (int, error) {
	rows, err := db.Pool.Query(ctx, `SELECT agent_name, sum(cost_nano), count(*), sum(total_tokens)
		FROM events WHERE project_id = $1 AND ts >= $2 GROUP BY agent_name`, projectID, since)
	if err != nil {
		return 0, translate(err, "events")
	}
	n := 0
	for rows.Next() {
		n++
	}
	return n, translate(rows.Err(), "events")
}

// RecreateDatabase drops the database name (closing its connections) and
// creates it empty, connecting through url to another database of the same
// server.
func RecreateDatabase(ctx context.Context, url, name string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+ident)
	return err
}

// RollupDigest is a digest of a project's rollup rows (hourly, daily, the
// session totals and span, the agents' hourly keys) without the project id, so two projects holding
// the same calls have the same digest however their rollups were filled
// (by ingest, or by RebuildRollups after COPY).
func (db *DB) RollupDigest(ctx context.Context, projectID string) (digest string, rows int64, err error) {
	err = db.Pool.QueryRow(ctx, `SELECT md5(coalesce(string_agg(r, '|' ORDER BY r), '')), count(*) FROM (
		SELECT concat_ws(',', 'h', bucket, dim, key, agent_name, `+strings.Join(rollupSums, ", ")+`) AS r
		FROM rollup_hour WHERE project_id = $1
		UNION ALL
		SELECT concat_ws(',', 'd', bucket, dim, key, agent_name, `+strings.Join(rollupSums, ", ")+`)
		FROM rollup_day WHERE project_id = $1
		UNION ALL
		SELECT concat_ws(',', 's', first_hour, last_hour, session_id, `+strings.Join(rollupSums, ", ")+`)
		FROM rollup_session WHERE project_id = $1
		UNION ALL
		SELECT concat_ws(',', 'k', bucket, dim, key, agent_name) FROM agent_key_hour WHERE project_id = $1
		UNION ALL
		SELECT concat_ws(',', 'span', max_span) FROM rollup_session_span WHERE project_id = $1) x`,
		projectID).Scan(&digest, &rows)
	return digest, rows, translate(err, "rollups")
}
