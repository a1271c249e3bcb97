package postgres

import (
	"fmt"
	"strconv"
	"strings"
)

// Tag rollups (migration 0034, docs/tags.md). The statements that write
// the rollups (the merger, re-pricing, the savings backfill) give their
// src CTE a tags column, one value per declared key of the call's project
// in the key order of tagKeys (NULL where the key does not count the
// call), and tagUpsert folds those into rollup_tag_hour and rollup_tag_day
// in the same statement; the tag back-fill runs tagUpsert alone.

// MaxTagKeys is how many tag keys a project may declare: each declared key
// adds about eight rollup rows per hour and combination of keys merged.
const MaxTagKeys = 5

// MaxTagValues is how many distinct values a key counts under their own
// name; calls with a further value count under TagOther.
const MaxTagValues = 1000

// The reserved values of a tag rollup: a call without the key, a call
// whose value breaks the value rule, and a value past MaxTagValues.
const (
	TagNone    = "(none)"
	TagInvalid = "(invalid)"
	TagOther   = "(other)"
)

// tagKeys (after WITH or a comma) is the CTE pt: each project's declared
// keys in key order, with their back-fill state in the same order.
const tagKeys = `pt AS (
  SELECT project_id, array_agg(tag ORDER BY tag) AS tags, array_agg(backfill_below ORDER BY tag) AS belows,
    array_agg(backfill_cursor ORDER BY tag) AS cursors
  FROM project_tags GROUP BY project_id
)`

// tagCovered is when a declared key counts an event (alias e, key t): it
// was stored after the declaration (or the back-fill is done), or the
// back-fill has passed its time.
const tagCovered = "e.tx >= t.below OR e.ts < t.cur"

// tagsOf is the tags column of an event (alias e) of a project whose keys
// are pt's row p (NULL without keys): each key's rollup value where cover
// holds, NULL elsewhere.
func tagsOf(e, cover string) string {
	return strings.NewReplacer("e.", e+".").Replace(`CASE WHEN p.project_id IS NOT NULL THEN ARRAY(
    SELECT CASE WHEN ` + cover + ` THEN llmcost_tag_value(e.metadata -> t.tag) END
    FROM unnest(p.tags, p.belows, p.cursors) WITH ORDINALITY AS t(tag, below, cur, i) ORDER BY t.i) END`)
}

// tagDims are the rows of each call and declared key: the value's total
// (dim 'tag', key ”) and each built-in dimension, each kept hourly and
// daily (as the all-agents rows are: a tag-filtered read then takes only
// its partial edge hours from events).
const tagDims = `(VALUES ('tag', ''), ('agent', s.agent_name), ('model', s.model),
    ('billing', s.billing), ('workflow', s.workflow), ('tool', s.tool_name),
    ('user', s.user_id), ('session', s.session_id)) AS d(dim, key)`

// tagUpsert returns the CTEs (after a leading comma) that fold src's tags
// into the tag rollups: tg expands each src row into one row per counted
// key; with admit, values new to a key are admitted (tag_values) while the
// key holds fewer than MaxTagValues, and the key's counters move; every
// value neither reserved nor admitted counts as TagOther. Re-pricing does
// not admit: its calls were counted when merged, under the value they keep.
func tagUpsert(admit bool) string {
	sums := make([]string, len(rollupSums))
	sets := make([]string, len(rollupSums))
	cols := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		sums[i] = fmt.Sprintf("sum(%s)::bigint", c)
		sets[i] = fmt.Sprintf("%s = %%[1]s.%s + excluded.%s", c, c, c)
		cols[i] = "s." + c
	}
	upsert := func(table, sel string) string {
		return fmt.Sprintf(`
  INSERT INTO %[1]s (project_id, tag, value, dim, bucket, key, `+strings.Join(rollupSums, ", ")+`)
  `+sel+`
  ON CONFLICT (project_id, tag, dim, value, bucket, key) DO UPDATE SET `+strings.Join(sets, ", ")+`
  RETURNING 1`, table)
	}
	admitWhere := "false"
	if admit {
		admitWhere = "n.r <= " + strconv.Itoa(MaxTagValues) + " - k.admitted"
	}
	return `, tg AS (
  SELECT s.project_id, s.ts, t.tag, t.value, s.agent_name, s.model, s.billing, s.user_id, s.session_id,
    s.workflow, s.tool_name, ` + strings.Join(cols, ", ") + `
  FROM src s JOIN pt p ON p.project_id = s.project_id CROSS JOIN LATERAL unnest(p.tags, s.tags) AS t(tag, value)
  WHERE t.value IS NOT NULL
), tdist AS (
  SELECT d.project_id, d.tag, d.value, EXISTS (SELECT 1 FROM tag_values v
    WHERE v.project_id = d.project_id AND v.tag = d.tag AND v.value = d.value) AS known
  FROM (SELECT DISTINCT project_id, tag, value FROM tg WHERE value NOT LIKE '(%') d
), tnew AS (
  SELECT project_id, tag, value, row_number() OVER (PARTITION BY project_id, tag ORDER BY value COLLATE "C") AS r
  FROM tdist WHERE NOT known
), tadm AS (
  SELECT n.project_id, n.tag, n.value FROM tnew n JOIN project_tags k ON k.project_id = n.project_id AND k.tag = n.tag
  WHERE ` + admitWhere + `
), tvi AS (
  INSERT INTO tag_values (project_id, tag, value) SELECT project_id, tag, value FROM tadm ON CONFLICT DO NOTHING
), tknown AS (
  SELECT project_id, tag, value FROM tdist WHERE known
  UNION ALL SELECT project_id, tag, value FROM tadm
), tv AS (
  SELECT g.*, CASE WHEN g.value LIKE '(%' OR k.value IS NOT NULL THEN g.value ELSE '` + TagOther + `' END AS v
  FROM tg g LEFT JOIN tknown k ON k.project_id = g.project_id AND k.tag = g.tag AND k.value = g.value
), tk AS (
  SELECT s.project_id, date_trunc('hour', s.ts, 'UTC') AS ts, s.tag, s.v AS value, d.dim, d.key,
    ` + strings.Join(sumsOf("s"), ", ") + `
  FROM tv s CROSS JOIN LATERAL ` + tagDims + `
  WHERE d.key IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5, 6
), tkh AS (` + upsert("rollup_tag_hour", `SELECT project_id, tag, value, dim, ts, key, `+strings.Join(rollupSums, ", ")+
		` FROM tk`) + `
), tkd AS (` + upsert("rollup_tag_day", `SELECT project_id, tag, value, dim, date_trunc('day', ts, 'UTC'), key, `+
		strings.Join(sums, ", ")+` FROM tk GROUP BY 1, 2, 3, 4, 5, 6`) + `
), tkc AS (
  UPDATE project_tags k SET admitted = k.admitted + c.admitted, overflow_calls = k.overflow_calls + c.overflow
  FROM (SELECT project_id, tag, sum(admitted)::int AS admitted, sum(overflow)::bigint AS overflow FROM (
      SELECT project_id, tag, 1 AS admitted, 0 AS overflow FROM tadm
      UNION ALL SELECT project_id, tag, 0, calls FROM tv WHERE v = '` + TagOther + `' AND calls <> 0) x
    GROUP BY 1, 2) c
  WHERE k.project_id = c.project_id AND k.tag = c.tag
)`
}
