package postgres

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// TagKey is one declared tag key of a project and its state.
type TagKey struct {
	Key        string
	DeclaredAt time.Time
	// Backfilling: calls stored before the declaration are still being
	// counted (the back-fill job), so the key's reports miss some of them.
	Backfilling bool
	// Values is how many distinct values count under their own name
	// (at most MaxTagValues); OverflowCalls how many calls counted under
	// TagOther because the key held that many.
	Values        int
	OverflowCalls int64
}

// Tags lists a project's declared tag keys in key order.
func (db *DB) Tags(ctx context.Context, projectID string) ([]TagKey, error) {
	rows, err := db.Pool.Query(ctx, `SELECT tag, declared_at, backfill_below > 0, admitted, overflow_calls
		FROM project_tags WHERE project_id = $1 ORDER BY tag`, projectID)
	if err != nil {
		return nil, translate(err, "tags")
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TagKey, error) {
		var k TagKey
		err := r.Scan(&k.Key, &k.DeclaredAt, &k.Backfilling, &k.Values, &k.OverflowCalls)
		k.DeclaredAt = k.DeclaredAt.UTC()
		return k, err
	})
	return keys, translate(err, "tags")
}

// putTagsSQL are PutTags' statements after the merger's lock: the keys
// left out ($2) go with their values and rollup rows, and the new ones are
// declared with the watermark $3 as the bound of the calls the back-fill
// counts (0 when the project has no call below it: nothing to back-fill).
var putTagsSQL = []string{
	`DELETE FROM rollup_tag_hour WHERE project_id = $1 AND NOT tag = ANY($2::text[])`,
	`DELETE FROM rollup_tag_day WHERE project_id = $1 AND NOT tag = ANY($2::text[])`,
	`DELETE FROM tag_values WHERE project_id = $1 AND NOT tag = ANY($2::text[])`,
	`DELETE FROM project_tags WHERE project_id = $1 AND NOT tag = ANY($2::text[])`,
	`INSERT INTO project_tags (project_id, tag, declared_at, backfill_below)
	SELECT $1, k, now(), CASE WHEN EXISTS (SELECT 1 FROM events WHERE project_id = $1 AND tx < $3) THEN $3 ELSE 0 END
	FROM unnest($2::text[]) AS k
	ON CONFLICT (project_id, tag) DO NOTHING`,
}

// PutTags makes keys (valid and distinct: the caller checks them) the
// project's declared tag keys. Keys no longer declared lose their rollups
// at once; a new key counts the calls merged from now on, and the calls
// already stored once the back-fill (BackfillTags) has read them, queued
// in the same transaction (db.EnqueueTagBackfill) or, without a queue, run
// before PutTags returns. It holds the merger's lock, so no merge straddles
// the declaration: every call is counted by the merger or by the back-fill,
// never both.
func (db *DB) PutTags(ctx context.Context, projectID string, keys []string) error {
	keys = append([]string{}, keys...)
	slices.Sort(keys)
	var queued bool
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var watermark int64
		if err := tx.QueryRow(ctx, lockState).Scan(&watermark); err != nil {
			return err
		}
		for i, q := range putTagsSQL {
			args := []any{projectID, keys}
			if i == len(putTagsSQL)-1 {
				args = append(args, watermark)
			}
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return err
			}
		}
		var due bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM project_tags WHERE project_id = $1 AND backfill_below > 0)`,
			projectID).Scan(&due); err != nil || !due || db.EnqueueTagBackfill == nil {
			return err
		}
		queued = true
		return db.EnqueueTagBackfill(ctx, tx, projectID)
	})
	if err != nil || queued {
		return translate(err, "tags")
	}
	_, err = db.BackfillTags(ctx, projectID, time.Time{})
	return err
}

// DefaultTagBackfillChunk is how many calls one back-fill step counts, in a
// transaction of its own under the merger's lock: about a merge slice's
// work, so ingest and the merger wait at most a fraction of a second.
const DefaultTagBackfillChunk = 20_000

// tagFillSQL counts project @project_id's calls stored below @below with
// a time in [@from, @to) under key @tag, admitting their values, as the
// merger counts new calls.
// The calls are summed per hour and combination of keys first, as the
// merger sums them.
var tagFillSQL = `WITH ` + tagKeys + `, src AS (
  SELECT project_id, date_trunc('hour', ts, 'UTC') AS ts, agent_name, model, billing, user_id, session_id,
    workflow, tool_name, tags, ` + strings.Join(sumsOf("c"), ", ") + `
  FROM (SELECT ` + contribution("e") + `, ` + tagsOf("e", "t.tag = @tag") + ` AS tags
    FROM events e JOIN pt p ON p.project_id = e.project_id
    WHERE e.project_id = @project_id AND e.tx < @below AND e.ts >= @from AND e.ts < @to) c
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
)` + tagUpsert(true) + `
SELECT coalesce(sum(calls), 0) FROM src`

// tagFillNext is where the back-fill's next chunk ends: the time of the
// chunk-th call after the cursor, no row when fewer remain. When that
// call has the cursor's own time (more than a chunk of calls share one
// timestamp: a back-fill stamped to the second), the chunk takes every
// call of that time and ends at the next later one (NULL: none), or the
// cursor would never move.
const tagFillNext = `SELECT CASE WHEN n.ts > $3 THEN n.ts
  ELSE (SELECT min(ts) FROM events WHERE project_id = $1 AND tx < $2 AND ts > $3) END
FROM (SELECT ts FROM events WHERE project_id = $1 AND tx < $2 AND ts >= $3 ORDER BY ts OFFSET $4 LIMIT 1) n`

// BackfillTags counts the calls stored before each newly declared key of
// the project, chunk by chunk in the calls' time order, each chunk in its
// own transaction under the merger's lock that moves the key's cursor past
// it and sets the key on the runs whose first call lies in the chunk's span
// (fillRunTags); a key is done when the cursor passes its last call. It stops after
// until (zero: when every key is done) and reports whether every key is.
func (db *DB) BackfillTags(ctx context.Context, projectID string, until time.Time) (bool, error) {
	for {
		var done bool
		err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
			var err error
			done, err = tagFillStep(ctx, tx, projectID, cmp.Or(db.TagBackfillChunk, DefaultTagBackfillChunk))
			return err
		})
		if err != nil || done {
			return done, translate(err, "tags")
		}
		if !until.IsZero() && time.Now().After(until) {
			return false, nil
		}
	}
}

// tagFillStep back-fills one chunk of the first key with a back-fill due
// and reports whether none was.
func tagFillStep(ctx context.Context, tx pgx.Tx, projectID string, chunk int) (bool, error) {
	if err := tx.QueryRow(ctx, lockState).Scan(new(int64)); err != nil {
		return false, err
	}
	var tag string
	var below int64
	var cursor time.Time
	err := tx.QueryRow(ctx, `SELECT tag, backfill_below, backfill_cursor FROM project_tags
		WHERE project_id = $1 AND backfill_below > 0 ORDER BY tag LIMIT 1`, projectID).Scan(&tag, &below, &cursor)
	if err == pgx.ErrNoRows {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var next *time.Time
	if err := tx.QueryRow(ctx, tagFillNext, projectID, below, cursor, chunk).Scan(&next); err != nil && err != pgx.ErrNoRows {
		return false, err
	}
	to := infinity
	if next != nil {
		to = *next
	}
	if _, err := tx.Exec(ctx, tagFillSQL, pgx.StrictNamedArgs{"project_id": projectID, "tag": tag, "below": below,
		"from": cursor, "to": to}); err != nil {
		return false, err
	}
	if err := fillRunTags(ctx, tx, projectID, tag, cursor, to, false); err != nil {
		return false, err
	}
	if next != nil {
		_, err = tx.Exec(ctx, `UPDATE project_tags SET backfill_cursor = $3 WHERE project_id = $1 AND tag = $2`, projectID, tag, *next)
	} else {
		_, err = tx.Exec(ctx, `UPDATE project_tags SET backfill_below = 0, backfill_cursor = '0001-01-01 00:00:00+00'
			WHERE project_id = $1 AND tag = $2`, projectID, tag)
	}
	return false, err
}

// infinity stands for PostgreSQL's 'infinity' timestamp: later than any
// call's time.
var infinity = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// ProjectsBackfillingTags lists the projects with a tag back-fill due, for
// the job runner to queue at start (a back-fill that gave up, or was
// declared where no runner ran).
func (db *DB) ProjectsBackfillingTags(ctx context.Context) ([]string, error) {
	rows, err := db.Pool.Query(ctx, `SELECT DISTINCT project_id::text FROM project_tags WHERE backfill_below > 0`)
	if err != nil {
		return nil, translate(err, "tags")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, "tags")
}

// rebuildTags recomputes project's tag rollups from its calls below
// watermark, in RebuildRollups' transaction (which holds the merger's
// lock): every key counts them all, so no back-fill is left due, and
// with runs every run takes its first call's values again, its rollups
// recomputed.
func rebuildTags(ctx context.Context, tx pgx.Tx, projectID string, watermark int64, runs bool) error {
	for _, q := range []string{`DELETE FROM rollup_tag_hour WHERE project_id = $1`, `DELETE FROM rollup_tag_day WHERE project_id = $1`,
		`UPDATE project_tags SET backfill_below = 0, backfill_cursor = '0001-01-01 00:00:00+00', overflow_calls = 0 WHERE project_id = $1`} {
		if _, err := tx.Exec(ctx, q, projectID); err != nil {
			return err
		}
	}
	rows, err := tx.Query(ctx, `SELECT tag FROM project_tags WHERE project_id = $1 ORDER BY tag`, projectID)
	if err != nil {
		return err
	}
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, tag := range tags {
		if _, err := tx.Exec(ctx, tagFillSQL, pgx.StrictNamedArgs{"project_id": projectID, "tag": tag,
			"below": watermark, "from": time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "to": infinity}); err != nil {
			return err
		}
	}
	if !runs || len(tags) == 0 {
		return nil
	}
	for _, tag := range tags {
		if err := fillRunTags(ctx, tx, projectID, tag, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), infinity, true); err != nil {
			return err
		}
	}
	b := &pgx.Batch{}
	queueDayRebuild(b, projectID)
	return tx.SendBatch(ctx, b).Close()
}
