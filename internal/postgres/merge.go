package postgres

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// The rollups are merged from events asynchronously (docs/analytics.md):
// events carry the id of the transaction that inserted them (events.tx),
// rollup_state.watermark says every event with tx below it is in the
// rollups, and reports add the events at or above it (the tail) to the
// rollups they read, in the same snapshot. Maintaining the rollups inside
// the ingest statement upserted several hundred rows per 1,000-call batch
// and held ingest at a fifth of raw COPY; one merge a second upserts each
// key once for every batch of that second.

// lockState takes the merger's lock (the rollup_state row) and returns the
// watermark. The merger, re-pricing, the savings backfill and
// RebuildRollups hold it, so the watermark and the rollups change under one
// writer at a time; ingest never takes it.
const lockState = `SELECT watermark FROM rollup_state FOR UPDATE`

// snapshotXmin is the oldest transaction still running: every transaction
// below it has finished, so every event with tx below it is visible to
// later statements (or was rolled back). Read in a statement after
// lockState, it is at least the xmin the previous merger used.
const snapshotXmin = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`

// mergeSQL folds the events with $1 ≤ tx < $2 (except project $3's, whose
// rollups a rebuild is about to recompute) into the rollups, moves the
// watermark to $2 and forgets the batches logged below it, in one
// statement. $4 and $5 (NULL: none) bound the events' ts by the slice's
// logged batches, so that only the partitions holding the slice's calls
// are read: the BRIN index on tx is read whole in every partition
// scanned, a cost that grows with the history, not with the slice. The
// calls are first summed per hour and combination of keys (the declared
// tags' values among them) (the finest grain: every rollup row is a sum
// of these), so the expansion into one row per dimension works on fewer
// rows.
var mergeSQL = `WITH ` + tagKeys + `, src AS (
  SELECT project_id, date_trunc('hour', ts, 'UTC') AS ts, agent_name, model, billing, user_id, session_id,
    workflow, tool_name, tags, max(ts) AS last_ts, ` + strings.Join(sumsOf("c"), ", ") + `
  FROM (SELECT ` + contribution("e") + `, ` + tagsOf("e", tagCovered) + ` AS tags
    FROM events e LEFT JOIN pt p ON p.project_id = e.project_id
    WHERE e.tx >= $1 AND e.tx < $2 AND ($3::uuid IS NULL OR e.project_id <> $3)
      AND ($4::timestamptz IS NULL OR e.ts BETWEEN $4 AND $5::timestamptz)) c
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
)` + rollupUpsert() + tagUpsert(true) + agentKeysUpsert + lastSeenMerge + `, st AS (UPDATE rollup_state SET watermark = $2 RETURNING 1),
bl AS (DELETE FROM ingest_batches WHERE tx < $2)
SELECT (SELECT count(*) FROM src), (SELECT count(*) FROM rh) + (SELECT count(*) FROM rd) + (SELECT count(*) FROM rw),
  (SELECT count(*) FROM st)`

// agentKeysUpsert (after a leading comma) adds the hours' users and
// sessions of each agent in src to agent_key_hour (migration 0019). Keys
// are only ever added here: re-pricing changes no key, so it does not
// touch them. Like the rollups, in no particular order (rollupUpsert).
const agentKeysUpsert = `, ak AS (
  INSERT INTO agent_key_hour (project_id, agent_name, dim, bucket, key)
  SELECT DISTINCT s.project_id, s.agent_name, v.dim, s.ts, v.key
  FROM src s CROSS JOIN LATERAL (VALUES ('user', s.user_id), ('session', s.session_id)) AS v(dim, key)
  WHERE v.key IS NOT NULL
  ON CONFLICT DO NOTHING
)`

// lastSeenMerge (after a leading comma) keeps when each agent last used
// each tool and model (agent_last_seen, read by compliance with the tail's
// calls). It is kept here, not in the ingest statement: there every batch
// updated the same few dozen rows, a tenth or more of the write's time
// (docs/performance.md), where one merge a second updates each row once.
var lastSeenMerge = `, ls AS (
  ` + lastSeenUpsert("src", "last_ts", "") + `
)`

// lastSeenRebuild recomputes project @project_id's agent_last_seen from
// its events with tx below @below, for RebuildRollups.
var lastSeenRebuild = lastSeenUpsert("events", "ts", "r.project_id = @project_id AND r.tx < @below AND")

// lastSeenUpsert moves agent_last_seen forward to the latest time (column
// ts) at which each agent of the rows r of from (where cond, if any) used
// each tool and model. In key order, as the ingest statement of an
// instance not yet upgraded still upserts the same rows.
func lastSeenUpsert(from, ts, cond string) string {
	return `INSERT INTO agent_last_seen (project_id, agent_name, dim, key, last_seen)
  SELECT r.project_id, r.agent_name, v.dim, v.key, max(r.` + ts + `)
  FROM ` + from + ` r CROSS JOIN LATERAL (VALUES ('tool', r.tool_name), ('model', r.model)) AS v(dim, key)
  WHERE ` + cond + ` v.key IS NOT NULL AND v.key <> '' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (project_id, agent_name, dim, key) DO UPDATE SET last_seen = excluded.last_seen
  WHERE agent_last_seen.last_seen < excluded.last_seen`
}

// batchLog (after a leading comma) logs the batch's stored calls per
// project in ingest_batches (migration 0027), in the ingest statement: the
// merger cuts its slices by these rows and the merge lag is read from
// them; reports read the unmerged calls within their time span (0036).
const batchLog = `, ib AS (
  INSERT INTO ingest_batches (project_id, calls, min_ts, max_ts)
  SELECT project_id, count(*), min(ts), max(ts) FROM ev GROUP BY project_id
)`

// loggedSpan (a select list over ingest_batches rows) is the first and
// last ts of the rows' calls, as first and last; a row logged before
// migration 0036 has no bounds and counts as unbounded.
const loggedSpan = `min(coalesce(min_ts, '0001-01-01 00:00:00+00')) AS first, max(coalesce(max_ts, '9999-12-30 00:00:00+00')) AS last`

// sliceEndSQL is where the next slice of the tail ends: the first logged
// transaction with at least $3 calls logged between the watermark $1 and it,
// or the horizon $2 when fewer are. A slice takes at least one batch, so
// it always moves the watermark; its size does not grow with the backlog.
// With it, the first and last ts of the slice's calls as logged (NULL
// when no batch was). Every call with tx at or above the watermark was
// logged with its batch; a bulk load's COPY is not, and the rebuild that
// must follow it (RebuildRollups) merges without slices or bounds.
const sliceEndSQL = `WITH s AS (
  SELECT coalesce(min(tx), $2::bigint) AS e FROM (
    SELECT tx, sum(calls) OVER (ORDER BY tx) - calls AS before
    FROM (SELECT tx, sum(calls) AS calls FROM ingest_batches WHERE tx >= $1 AND tx < $2 GROUP BY tx) g
  ) c WHERE before >= $3
)
SELECT s.e, b.first, b.last FROM s CROSS JOIN LATERAL (
  SELECT ` + loggedSpan + `
  FROM ingest_batches WHERE tx >= $1 AND tx < s.e) b`

// everything is the span of every call's ts: the merged span of a merge
// without logged bounds.
var everything = analytics.Span{Start: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}

// DefaultMergeSlice is how many calls one merge step folds at most (plus
// the rest of the batch that crosses it): about a quarter of a second of
// merging on two cores, so a step never nears its statement timeout and a
// failed step costs little to retry.
const DefaultMergeSlice = 50_000

// MergeResult is what one merge did.
type MergeResult struct {
	// Groups merged (calls summed per hour and combination of keys) and
	// rollup rows upserted.
	Groups, Rows int64
	// Watermark after the merge: every event with a lower tx is merged.
	Watermark int64
	// Steps is how many slices were merged, each in its own transaction.
	Steps int
	// Span holds the ts of every call merged (empty when none was), for
	// SummarizeTail.
	Span analytics.Span
}

// MergeRollups folds the events inserted before the call into the
// rollups, slice by slice (MergeStep), each slice committed with the
// watermark moved past it, so a backlog of any size drains at the pace of
// its slices and a failure loses one slice's work. It stops at the
// horizon it saw first, so it returns under sustained ingest too; the
// extension runs it every second. Concurrent calls (other instances on the
// database) take turns on the merger's lock and merge each event once.
func (db *DB) MergeRollups(ctx context.Context) (MergeResult, error) {
	var total MergeResult
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		return total, err
	}
	for {
		res, err := db.MergeStep(ctx, horizon)
		total.Groups, total.Rows, total.Steps = total.Groups+res.Groups, total.Rows+res.Rows, total.Steps+res.Steps
		total.Watermark, total.Span = max(total.Watermark, res.Watermark), total.Span.Hull(res.Span)
		if err != nil || res.Steps == 0 || res.Watermark >= horizon {
			return total, err
		}
	}
}

// MergeStep merges one slice of the tail: at most the merge slice's calls
// (db.MergeSlice, DefaultMergeSlice when 0) and nothing at or above
// horizon (0: none), in one transaction that moves the watermark past it.
// Steps is 0 when there was nothing to merge.
func (db *DB) MergeStep(ctx context.Context, horizon int64) (MergeResult, error) {
	var res MergeResult
	err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		var err error
		res, err = merge(ctx, tx, nil, horizon, cmp.Or(db.MergeSlice, DefaultMergeSlice), db.mergeTimeout())
		return err
	})
	return res, translate(err, "rollups")
}

// mergeTimeout is the statement timeout of one merge step.
func (db *DB) mergeTimeout() string {
	if db.MergeTimeout > 0 {
		return strconv.FormatInt(db.MergeTimeout.Milliseconds(), 10) + "ms"
	}
	return defaultMergeTimeout
}

// defaultMergeTimeout bounds a merge statement: a slice takes seconds at
// most, a rebuild's merge of the other projects' tail longer.
const defaultMergeTimeout = "10min"

// mergeLocked takes the merger's lock and merges up to the current xmin
// in one statement, skipping project except (nil: none): RebuildRollups'
// merge of the other projects before it recomputes one.
func mergeLocked(ctx context.Context, tx pgx.Tx, except *string) (MergeResult, error) {
	return merge(ctx, tx, except, 0, 0, defaultMergeTimeout)
}

// merge locks the merger's state and merges from the watermark to the
// current xmin, or less: below horizon (0: no bound) and at most slice
// calls (0: no bound); except's events (nil: none) are skipped.
func merge(ctx context.Context, tx pgx.Tx, except *string, horizon, slice int64, timeout string) (MergeResult, error) {
	var res MergeResult
	if _, err := tx.Exec(ctx, mergeSettings+"; SET LOCAL statement_timeout = '"+timeout+"'"); err != nil {
		return res, err
	}
	var watermark, end int64
	if err := tx.QueryRow(ctx, lockState).Scan(&watermark); err != nil {
		return res, err
	}
	if err := tx.QueryRow(ctx, snapshotXmin).Scan(&end); err != nil {
		return res, err
	}
	if horizon > 0 {
		end = min(end, horizon)
	}
	res.Watermark = watermark
	if end <= watermark {
		return res, nil
	}
	res.Span = everything
	var first, last *time.Time
	if slice > 0 {
		if err := tx.QueryRow(ctx, sliceEndSQL, watermark, end, slice).Scan(&end, &first, &last); err != nil {
			return res, err
		}
		if first == nil || last == nil {
			// Transactions that stored no call (settings, budgets, a
			// transaction holding the xmin back): nothing to read.
			_, err := tx.Exec(ctx, `UPDATE rollup_state SET watermark = $1`, end)
			res.Watermark, res.Steps, res.Span = end, 1, analytics.Span{}
			return res, err
		}
		// Timestamps are whole microseconds: the span ends just after the last.
		res.Span = analytics.Span{Start: first.UTC(), End: last.UTC().Add(time.Microsecond)}
	}
	// Only the merge statement is planned without sorts (noSorts), in the
	// same round trip; what the caller runs next in the transaction
	// (RebuildRollups' rebuild) is planned as usual.
	b := &pgx.Batch{}
	b.Queue(noSorts)
	var moved int64
	b.Queue(mergeSQL, watermark, end, except, first, last).QueryRow(func(row pgx.Row) error {
		return row.Scan(&res.Groups, &res.Rows, &moved)
	})
	b.Queue(sortsAgain)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return res, err
	}
	res.Watermark, res.Steps = end, 1
	return res, nil
}

// noSorts makes the planner hash the merge's groups: it guesses the groups
// of the nine key columns as many as the rows, and sorted the tail (wide
// rows) and then its expansion into dimensions to group them, where
// hashing them takes about a quarter less (BenchmarkMergeSteady;
// docs/performance.md). A hash that outgrows work_mem spills
// to disk (PostgreSQL 13 and later), so a large backlog still merges.
//
// It also keeps the planner off sequential scans: the merge reads one
// slice of transaction ids, always through the BRIN index on tx, but a
// partition analyzed while it filled has tx statistics that end below the
// slice, and the planner then scanned the whole partition (69,000 rows
// for a slice of none, and as many times more as the month grows).
// sortsAgain undoes both for the rest of the transaction.
const noSorts = `SELECT set_config('enable_sort', 'off', true), set_config('enable_seqscan', 'off', true)`
const sortsAgain = `SELECT set_config('enable_sort', 'on', true), set_config('enable_seqscan', 'on', true)`

// mergeSettings: the planner must see the watermark's value to pick the BRIN
// index on tx (a generic plan guesses a third of the table); a tail grown
// behind a long transaction may take a while and some memory to group.
const mergeSettings = customPlans + `; SET LOCAL work_mem = '64MB'`

// MergeHorizon is the id the next transaction will get: every event stored
// before the call has a lower tx, so all of them are in the rollups once
// the watermark reaches it (MergedTo).
func (db *DB) MergeHorizon(ctx context.Context) (int64, error) {
	var horizon int64
	err := db.Pool.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&horizon)
	return horizon, translate(err, "rollups")
}

// MergedTo reports whether the merger's watermark has reached horizon (a
// MergeHorizon). It reads one row, where TailEvents counts the tail, which
// grows with the backlog: too much to poll with.
func (db *DB) MergedTo(ctx context.Context, horizon int64) (bool, error) {
	var watermark int64
	err := db.Pool.QueryRow(ctx, `SELECT watermark FROM rollup_state`).Scan(&watermark)
	return watermark >= horizon, translate(err, "rollups")
}

// TailEvents counts a project's events not yet merged into the rollups.
func (db *DB) TailEvents(ctx context.Context, projectID string) (int64, error) {
	var n int64
	err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM events
		WHERE project_id = $1 AND tx >= (SELECT watermark FROM rollup_state)`, projectID).Scan(&n)
	return n, translate(err, "events")
}
