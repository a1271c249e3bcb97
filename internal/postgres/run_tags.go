package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Tags of runs (migration 0035, docs/tags.md "Runs"): a run is tagged like
// its agent, by its first call, whose value of each declared key is stored
// on the run (runs.tags) as the tag rollups count it (tagCounted). The run
// reports narrowed to a tag value read the window's runs and keep those.

// maxTagValuesSQL is MaxTagValues as SQL text, for statements that take
// no parameter for it.
var maxTagValuesSQL = strconv.Itoa(MaxTagValues)

// runTagsOf is the tags of a run being inserted (runs_insert.sql, alias u):
// its first call's value of each key its project declares, key=value in
// byte order, NULL when the project declares none (the first call is not
// read then).
var runTagsOf = `CASE WHEN EXISTS (SELECT 1 FROM project_tags pk WHERE pk.project_id = u.project_id) THEN (
  SELECT array_agg(v.pair ORDER BY v.pair COLLATE "C")
  FROM events e JOIN project_tags pk ON pk.project_id = e.project_id
    CROSS JOIN LATERAL (SELECT pk.tag || '=' || ` + tagCounted("pk.tag", maxTagValuesSQL) + ` AS pair) v
  WHERE e.project_id = u.project_id AND e.ts = u.first_ts AND e.event_id = u.first_event_id) END`

// runTagFillSQL sets key @tag on the runs of project @project_id whose
// first call's time lies in [@from, @to) to that call's value (replacing
// the key's element, the others kept, in byte order): the tag back-fill's
// step for runs, after the chunk's calls (and their values) were counted,
// so a run's value is the one its first call counts under. Every run of
// the span is set, those refreshed since the declaration too (to the same
// value), so a key declared again replaces the values runs kept from its
// earlier declaration.
var runTagFillSQL = `UPDATE runs r SET tags = ARRAY(SELECT x FROM (
    SELECT x FROM unnest(r.tags) AS x WHERE split_part(x, '=', 1) <> @tag::text
    UNION ALL SELECT pk.tag || '=' || ` + tagCounted("pk.tag", maxTagValuesSQL) + `) s ORDER BY x COLLATE "C")
FROM events e JOIN project_tags pk ON pk.project_id = e.project_id AND pk.tag = @tag
WHERE r.project_id = @project_id AND r.first_ts >= @from AND r.first_ts < @to
  AND e.project_id = r.project_id AND e.ts = r.first_ts AND e.event_id = r.first_event_id`

// fillRunTags runs runTagFillSQL in tx, under the project's exclusive
// 4247 lock, and recomputes the daily rollup rows of the keys of the runs
// it set (with every other run of those keys and days) unless
// rebuildLater (the caller rebuilds every row of the project).
func fillRunTags(ctx context.Context, tx pgx.Tx, projectID, tag string, from, to time.Time, rebuildLater bool) error {
	if _, err := tx.Exec(ctx, runTagsOwnSQL, projectID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, runTagFillSQL, pgx.StrictNamedArgs{"project_id": projectID, "tag": tag, "from": from,
		"to": to}); err != nil {
		return err
	}
	if rebuildLater {
		return nil
	}
	rows, err := tx.Query(ctx, runKeysInSQL, pgx.StrictNamedArgs{"project_id": projectID, "from": from, "to": to})
	if err != nil {
		return err
	}
	keys := map[dayKey]bool{}
	var k dayKey
	if _, err := pgx.ForEachRow(rows, []any{&k.Project, &k.Day, &k.Workflow, &k.Agent}, func() error {
		keys[k] = true
		return nil
	}); err != nil {
		return err
	}
	b := &pgx.Batch{}
	queueDayRefresh(b, keys)
	return tx.SendBatch(ctx, b).Close()
}

// The tag back-fill rewrites runs' tags (fillRunTags) and recomputes their
// rollup keys; a refresh reads a run's old tags before and writes its
// difference after. Were a back-fill chunk to commit in between, the
// refresh would add the run under its new value a second time. So a
// refresh holds its projects' lock of class 4247 shared from before it
// reads until it commits (runTagsShareSQL, with its runs' 4242 locks in
// runLockSQL), and a back-fill chunk holds its project's exclusively
// (runTagsOwnSQL) before it writes a run: refreshes of the project run
// beside each other, and the chunk between them.
const (
	runTagsShareSQL = `SELECT count(pg_advisory_xact_lock_shared(4247, h)) FROM (
  SELECT DISTINCT hashtext(p::uuid::text) AS h FROM unnest($1::text[]) AS u(p) ORDER BY 1) s`
	runTagsOwnSQL = `SELECT pg_advisory_xact_lock(4247, hashtext($1::uuid::text))`
)

// runKeysInSQL are the (project, day, workflow, agent) rollup keys of the
// runs of project @project_id whose first call lies in [@from, @to), as
// dayKeysSQL names them: the keys a back-fill chunk's runs are counted
// under, recomputed whole after their tags changed.
const runKeysInSQL = `SELECT DISTINCT project_id::text, date_trunc('day', first_ts, 'UTC'), coalesce(workflow, ''), agent_name
FROM runs WHERE project_id = @project_id AND first_ts >= @from AND first_ts < @to`
