package postgres

import "strings"

// The report reads of the chargeback tags (docs/tags.md): a tag filter
// and by/tag.<key> read window.sql over the tag rollups.

// tagRead is how a report read involves a tag.
type tagRead int

const (
	noTag tagRead = iota
	tagFilter
	tagBy
)

// tagValueOf is a raw event's (alias e, its key's project_tags row pk)
// value of the read's tag as the tag rollups count it: NULL while the
// back-fill has not reached it, tagCounted otherwise. Inline expressions,
// not a function: an edge hour of a busy project is thousands of calls.
var tagValueOf = `CASE WHEN e.tx >= pk.backfill_below OR e.ts < pk.backfill_cursor THEN
    ` + tagCountedRead + ` END`

// tagCountedRead is tagCounted of the read's tag, its value computed once
// per call (tagRawFrom's tval.v).
var tagCountedRead = tagCountedAs("@tag", "tval.v", "@max_tag_values")

// tagCounted is the value under which the tag rollups count a raw event's
// (alias e, the key's project_tags row pk) value of key tag (an SQL text)
// when max values is the bound: the value as it is while the key has room
// or holds it, (other) past the bound (a value not yet admitted counts as
// itself while there is room, as the merger will count it).
func tagCounted(tag, max string) string {
	return tagCountedAs(tag, "llmcost_tag_value(e.metadata -> "+tag+")", max)
}

// tagCountedAs is tagCounted with v the SQL text of the call's value
// (llmcost_tag_value of it).
func tagCountedAs(tag, v, max string) string {
	return `CASE WHEN ` + v + ` LIKE '(%' OR pk.admitted < ` + max + `
      OR EXISTS (SELECT 1 FROM tag_values tv WHERE tv.project_id = e.project_id AND tv.tag = ` + tag + `
        AND tv.value = ` + v + `)
    THEN ` + v + ` ELSE '` + TagOther + `' END`
}

// tagRawFrom joins each raw event to its project's row of the read's key
// and its value (tval.v), computed once: inlined, llmcost_tag_value would
// be evaluated at every use of it, two to four a call (OFFSET 0 keeps the
// planner from inlining the subquery).
const tagRawFrom = "events e JOIN project_tags pk ON pk.project_id = e.project_id AND pk.tag = @tag " +
	"CROSS JOIN LATERAL (SELECT llmcost_tag_value(e.metadata -> @tag) OFFSET 0) AS tval(v)"

// tagFilterRaw keeps the raw calls of a tag filter's value: a plain value
// (not one of the parenthesised ones) is the call's metadata text under the
// key, a cheap test the planner runs before the value's rule.
const tagFilterRaw = "(@tag_value::text LIKE '(%' OR e.metadata ->> @tag::text = @tag_value::text) AND "

// tagWindowPart is window.sql over the tag rollups: a tag filter reads
// the rows of one value of the tag by v.dim, by/tag.<key> (v.dim "tag")
// every value's totals keyed by value. There are no weekly tag rows
// (segmentsFor reads whole weeks as days): the weekly part reads the
// daily table over an empty span.
func tagWindowPart(v windowVariant) string {
	parts := map[string]string{"hour_table": "rollup_tag_hour", "day_table": "rollup_tag_day",
		"week_table": "rollup_tag_day", "raw_from": tagRawFrom}
	if v.tag == tagBy {
		parts["rollup_dim"], parts["rollup_agent"], parts["rollup_key"] = "dim = 'tag'", "tag = @tag", "value"
		parts["raw_agent"], parts["raw_key"] = "true", tagValueOf
	} else {
		parts["rollup_agent"] = "tag = @tag AND value = @tag_value"
		parts["raw_agent"], parts["raw_key"] = tagFilterRaw+tagValueOf+" = @tag_value", rawKeys[v.dim]
	}
	return fillSQL(queryBody("window.sql"), parts)
}

// queryText is the text of q's read (report: one of reportReads).
func queryText(report string, q WindowQuery) string {
	switch {
	case IsTagDim(q.Dim):
		return windowSQLs[windowVariant{report: report, dim: "tag", tag: tagBy}]
	case q.Tag != "":
		return windowSQLs[windowVariant{report: report, dim: q.Dim, tag: tagFilter}]
	}
	return windowSQL(report, q.Dim, q.AgentName != "", q.PerAgent)
}

// TagDimPrefix starts the dimension of a declared tag key: tag.team.
const TagDimPrefix = "tag."

// IsTagDim reports whether dim is a tag's dimension (tag.<key>).
func IsTagDim(dim string) bool { return strings.HasPrefix(dim, TagDimPrefix) }
