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

// fillRunTags runs runTagFillSQL in tx.
func fillRunTags(ctx context.Context, tx pgx.Tx, projectID, tag string, from, to time.Time) error {
	_, err := tx.Exec(ctx, runTagFillSQL, pgx.StrictNamedArgs{"project_id": projectID, "tag": tag, "from": from, "to": to})
	return err
}
