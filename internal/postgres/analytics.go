package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
)

// rawKeys is the events column of each dimension, for the raw edges.
var rawKeys = map[string]string{"agent": "e.agent_name", "model": "e.model", "billing": "e.billing",
	"user": "e.user_id", "session": "e.session_id", "workflow": "e.workflow", "tool": "e.tool_name"}

// reportReads are the groupings of a window read, each a file of queries/
// whose window marker takes window.sql.
var reportReads = []string{"by_key.sql", "by_bucket.sql", "by_key_bucket.sql", "by_key_sum.sql"}

// windowVariant names one text of a report read.
type windowVariant struct {
	report, dim        string
	filtered, perAgent bool
	// tag: a read narrowed to a tag's value (tagFilter) or by a tag's
	// values (tagBy, dim "tag"), from the tag rollups.
	tag tagRead
}

// windowSQLs are the texts of every report read, filled once: they are
// few and fixed, so pgx caches one prepared statement each.
var windowSQLs = func() map[windowVariant]string {
	out := map[windowVariant]string{}
	for _, report := range reportReads {
		for dim := range rawKeys {
			for _, v := range []windowVariant{{report, dim, false, false, noTag}, {report, dim, true, false, noTag}, {report, dim, false, true, noTag}} {
				if !v.perAgent || dim == "model" {
					out[v] = fillSQL(mustQuery(report), map[string]string{"window": windowPart(v)})
				}
			}
			v := windowVariant{report: report, dim: dim, tag: tagFilter}
			out[v] = fillSQL(mustQuery(report), map[string]string{"window": tagWindowPart(v)})
		}
		v := windowVariant{report: report, dim: "tag", tag: tagBy}
		out[v] = fillSQL(mustQuery(report), map[string]string{"window": tagWindowPart(v)})
	}
	return out
}()

// windowPart is window.sql for v: the all-agents rows by default; with
// perAgent every agent's rows, keyed by agent and key (agentKeySep between
// them); filtered, one agent's rows and calls.
func windowPart(v windowVariant) string {
	parts := map[string]string{"raw_key": rawKeys[v.dim]}
	switch {
	case v.perAgent:
		// dim = 'model' AND agent_name <> '': the partial indexes of 0013.
		parts["rollup_key"], parts["rollup_agent"] = "agent_name || chr(31) || key", "agent_name <> ''"
		parts["raw_key"] = "e.agent_name || chr(31) || " + rawKeys[v.dim]
	case v.filtered:
		parts["raw_agent"] = "e.agent_name = @agent"
		if v.dim == "agent" {
			parts["rollup_agent"] = "agent_name = '' AND key = @agent"
		}
	}
	return fillSQL(queryBody("window.sql"), parts)
}

// windowSQL is the text of a report read (report: one of reportReads).
// perAgent reads the all-agents rows whatever the filter.
func windowSQL(report, dim string, filtered, perAgent bool) string {
	if perAgent {
		filtered = false
	}
	return windowSQLs[windowVariant{report: report, dim: dim, filtered: filtered, perAgent: perAgent}]
}

// agentKeySep separates the agent from the key in a PerAgent read's keys.
const agentKeySep = "\x1f"

// SplitAgentKey splits a PerAgent read's key into the agent and the key.
func SplitAgentKey(k string) (agent, key string) {
	agent, key, _ = strings.Cut(k, agentKeySep)
	return agent, key
}

// WindowQuery is one report read over a decomposed window.
type WindowQuery struct {
	ProjectID string
	// Dim is agent, model, billing, user, session, workflow or tool.
	Dim string
	// AgentName narrows the read to one agent's calls ("" for all).
	AgentName string
	Segments  analytics.Segments
	// BucketWidth > 0 groups by time bucket instead of by key.
	BucketWidth time.Duration
	// Limit caps a by-key read after sorting (0: every key).
	Limit int
	// PerAgent reads every agent's rows of Dim (model only: the one whose
	// per-agent hourly rows go back as far as its others), keyed
	// "agent\x1fkey" (SplitAgentKey), unordered and unlimited (AllCostNano
	// stays 0): the caller sorts.
	PerAgent bool
	// KeyBuckets groups by key and time bucket of BucketWidth (KeyPoints).
	KeyBuckets bool
	// Tag and TagValue narrow the read to the calls whose value of the
	// declared key Tag is TagValue (a tag filter; not with AgentName).
	// Dim may also be a declared key's dimension, tag.<key> (IsTagDim),
	// keyed by its values, with neither filter.
	Tag, TagValue string
}

// WindowResult is what one WindowQuery read.
type WindowResult struct {
	// Keys are sorted by cost descending then key; AllCostNano is the cost
	// of every key, the limit notwithstanding (0 for a limited read by
	// session over all agents, which does not visit every key: no report
	// shares sessions).
	Keys        []analytics.Keyed
	AllCostNano int64
	// Points are the non-empty buckets, unordered.
	Points []analytics.Point
	// KeyPoints are the non-empty (key, bucket) sums of a KeyBuckets read.
	KeyPoints []KeyPoint
}

// KeyPoint is the sums of one key in one time bucket.
type KeyPoint struct {
	Key string
	analytics.Point
}

// ReadWindows runs report reads in one REPEATABLE READ read-only
// transaction: several reports of one response (/full) see the same data,
// and every read sees the watermark, the rollups it describes and the tail
// above it in one snapshot, so the sums are exact whatever the merger does
// meanwhile.
func (db *DB) ReadWindows(ctx context.Context, qs ...WindowQuery) ([]WindowResult, error) {
	for _, q := range qs {
		if _, ok := rawKeys[q.Dim]; !ok && !IsTagDim(q.Dim) {
			return nil, apierr.Newf(apierr.NotFound, "no analytics dimension %q", q.Dim)
		}
		if q.PerAgent && q.Dim != "model" {
			return nil, fmt.Errorf("analytics: a per-agent read of %q: only model is read per agent", q.Dim)
		}
		if (q.Tag != "" || IsTagDim(q.Dim)) && (q.AgentName != "" || q.PerAgent || (q.Tag != "" && IsTagDim(q.Dim))) {
			return nil, apierr.New(apierr.ValidationFailed,
				"tag: a tag filter or dimension combines with neither agent_name nor another tag")
		}
	}
	out := make([]WindowResult, len(qs))
	if len(qs) == 0 {
		return out, nil
	}
	err := db.readSnapshot(ctx, qs[0].ProjectID, func(tx pgx.Tx, t tail) error {
		for i, wq := range qs {
			if wq.ProjectID != qs[0].ProjectID {
				return fmt.Errorf("analytics: one snapshot reads one project, got %s and %s", qs[0].ProjectID, wq.ProjectID)
			}
			res, err := readWindow(ctx, tx, wq, t)
			if err != nil {
				return err
			}
			out[i] = res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// tail is what a read of one project takes raw besides its edges: the
// calls at or above the rollups' watermark, all of which lie in span (the
// time span of the project's unmerged batches; empty when it has none).
type tail struct {
	watermark int64
	span      analytics.Span
}

// rolled is the part of a read's rolled-up span where the project's
// unmerged calls lie: the span its tail is read over (empty: none).
func (t tail) rolled(s analytics.Segments) analytics.Span { return s.Rolled().Clip(t.span) }

// snapshotSQL reads, in a read's snapshot, the watermark and the time span
// of the project's calls above it (ingest_batches, loggedSpan). The planner
// plans every later statement for its values (custom plans): a generic
// plan guesses a third of the events for the tail.
const snapshotSQL = `SELECT set_config('plan_cache_mode', 'force_custom_plan', true), s.watermark, b.first, b.last
FROM rollup_state s CROSS JOIN LATERAL (
  SELECT ` + loggedSpan + `
  FROM ingest_batches WHERE project_id = $1 AND tx >= s.watermark) b`

// readSnapshot runs read of project in one REPEATABLE READ read-only
// transaction with the tail of its snapshot, on the replica when it has
// caught up (onReader): read sets its results anew each time it runs.
//
// Every call with tx at or above the watermark was logged, in the same
// transaction, in ingest_batches with its time (the ingest statement,
// batchLog), so the same snapshot that holds the call holds its bounds.
func (db *DB) readSnapshot(ctx context.Context, project string, read func(tx pgx.Tx, t tail) error) error {
	err := db.snapshotOnReader(ctx, func(tx pgx.Tx) error {
		var t tail
		var first, last *time.Time
		if err := tx.QueryRow(ctx, snapshotSQL, project).Scan(nil, &t.watermark, &first, &last); err != nil {
			return err
		}
		if first != nil && last != nil {
			// Timestamps are whole microseconds: the span ends just after the last.
			t.span = analytics.Span{Start: first.UTC(), End: last.UTC().Add(time.Microsecond)}
		}
		return read(tx, t)
	})
	return translate(err, "analytics")
}

// rowsQuerier is a pool or a transaction.
type rowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// HoursOutliveCalls reports whether the rollups q reads keep hourly rows
// for hours whose raw calls have expired: all but a read narrowed to one
// agent by a dimension other than agent and model, whose per-agent hourly
// rows migration 0045 added only for the calls still stored then (the
// merger has written them since). Such a read that reaches before the raw
// cutoff starts at its whole day (reports.Params), where daily rows exist.
func (q WindowQuery) HoursOutliveCalls() bool {
	return q.Tag != "" || IsTagDim(q.Dim) || q.AgentName == "" || q.Dim == "agent" || q.Dim == "model"
}

// segmentsFor reads whole weeks as days for every dimension but user, the
// only one with weekly rows; the tag rollups have none.
func segmentsFor(q WindowQuery) analytics.Segments {
	s := q.Segments
	tagged := q.Tag != "" || IsTagDim(q.Dim)
	if (q.Dim != "user" || tagged) && !s.Weeks.Empty() {
		s.Days.End, s.Weeks, s.DaysTail = s.DaysTail.End, analytics.Span{}, analytics.Span{}
	}
	return s
}

// windowArgs are the parameters of window.sql but the dimension (@dim, or
// @dims for a read of several), which the caller adds.
func windowArgs(projectID, agent string, s analytics.Segments, t tail) pgx.StrictNamedArgs {
	rolled := t.rolled(s)
	return pgx.StrictNamedArgs{"project_id": projectID, "agent": agent,
		"hour_head_start": s.HourHead.Start, "hour_head_end": s.HourHead.End,
		"hour_tail_start": s.HourTail.Start, "hour_tail_end": s.HourTail.End,
		"days_start": s.Days.Start, "days_end": s.Days.End,
		"days_tail_start": s.DaysTail.Start, "days_tail_end": s.DaysTail.End,
		"weeks_start": s.Weeks.Start, "weeks_end": s.Weeks.End,
		"raw_head_start": s.RawHead.Start, "raw_head_end": s.RawHead.End,
		"raw_tail_start": s.RawTail.Start, "raw_tail_end": s.RawTail.End,
		"minus_head_start": s.MinusHead.Start, "minus_head_end": s.MinusHead.End,
		"minus_tail_start": s.MinusTail.Start, "minus_tail_end": s.MinusTail.End,
		"watermark": t.watermark, "rolled_start": rolled.Start, "rolled_end": rolled.End}
}

// ComplementEdges has q read its window's partial edge hours the way that
// reads fewer calls (analytics.Segments.Complement), now being the clock
// and rawExpired the raw calls' retention cutoff (nil: none): the hour's
// rollup rows less the calls outside the window, or the part inside read
// raw. A tag read too: a raw call's value counts as the tag rollups count
// it (tagValueOf: none before the back-fill reaches it; a value admitted
// when merged stays admitted, one past the bound stays past it).
func (q WindowQuery) ComplementEdges(now time.Time, rawExpired *time.Time) WindowQuery {
	q.Segments = q.Segments.Complement(now, rawExpired)
	return q
}

func readWindow(ctx context.Context, tx rowsQuerier, q WindowQuery, t tail) (WindowResult, error) {
	s := segmentsFor(q)
	args := windowArgs(q.ProjectID, q.AgentName, s, t)
	args["dim"] = q.Dim
	if q.Tag != "" || IsTagDim(q.Dim) {
		delete(args, "agent")
		args["tag"], args["max_tag_values"] = strings.TrimPrefix(q.Dim, TagDimPrefix), int32(MaxTagValues)
		if q.Tag != "" {
			args["tag"], args["tag_value"] = q.Tag, q.TagValue
		}
	}
	if useSessionTop(q, s) {
		return readSessionTop(ctx, tx, args, q.Limit)
	}
	var res WindowResult
	if q.KeyBuckets {
		args["bucket_secs"] = q.BucketWidth.Seconds()
		rows, err := tx.Query(ctx, queryText("by_key_bucket.sql", q), args)
		if err != nil {
			return res, err
		}
		res.KeyPoints, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeyPoint, error) {
			var p KeyPoint
			err := r.Scan(append([]any{&p.Key, &p.Bucket}, sumDest(&p.Sums)...)...)
			p.Bucket = p.Bucket.UTC()
			return p, err
		})
		return res, err
	}
	if q.BucketWidth > 0 {
		args["bucket_secs"] = q.BucketWidth.Seconds()
		rows, err := tx.Query(ctx, queryText("by_bucket.sql", q), args)
		if err != nil {
			return res, err
		}
		res.Points, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (analytics.Point, error) {
			var p analytics.Point
			err := r.Scan(append([]any{&p.Bucket}, sumDest(&p.Sums)...)...)
			p.Bucket = p.Bucket.UTC()
			return p, err
		})
		return res, err
	}
	var limit *int64
	if q.Limit > 0 {
		l := int64(q.Limit)
		limit = &l
	}
	if q.PerAgent {
		rows, err := tx.Query(ctx, queryText("by_key_sum.sql", q), args)
		if err != nil {
			return res, err
		}
		res.Keys, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (analytics.Keyed, error) {
			var k analytics.Keyed
			return k, r.Scan(append([]any{&k.Key}, sumDest(&k.Sums)...)...)
		})
		return res, err
	}
	args["limit"] = limit
	rows, err := tx.Query(ctx, queryText("by_key.sql", q), args)
	if err != nil {
		return res, err
	}
	// Not `return res, collect…(&res)`: the order in which res is read and
	// the call runs is unspecified.
	err = collectKeysWithTotal(rows, &res)
	return res, err
}

// collectKeysWithTotal reads the rows of a limited read by key (by_key.sql,
// session_top.sql): each key's sums, then the cost of every key, into res.
func collectKeysWithTotal(rows pgx.Rows, res *WindowResult) error {
	var err error
	res.Keys, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (analytics.Keyed, error) {
		var k analytics.Keyed
		err := r.Scan(append(append([]any{&k.Key}, sumDest(&k.Sums)...), &res.AllCostNano)...)
		return k, err
	})
	return err
}

// sumDest are scan destinations in rollupSums order.
func sumDest(s *analytics.Sums) []any {
	return []any{&s.Calls, &s.InputTokens, &s.OutputTokens, &s.CachedTokens, &s.CacheWriteTokens,
		&s.TotalTokens, &s.CostNano, &s.SubscriptionNano, &s.LatencySum, &s.LatencyCount, &s.SuccessCalls,
		&s.UnpricedCalls, &s.ReadSavingsNano, &s.WritePremiumNano, &s.EventsWithCache, &s.FailedCostNano, &s.TracedCalls,
		&s.OutputOver16Calls, &s.OutputOver256Calls}
}
