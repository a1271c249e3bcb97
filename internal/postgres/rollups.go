package postgres

import (
	"fmt"
	"strings"
)

// Rollups (migration 0005, docs/analytics.md): every stored call adds to
// rollup_hour, rollup_day and rollup_week rows keyed by (project, dim,
// agent_name, bucket, key). The statements that change them (the merger,
// re-pricing, the savings backfill) carry a CTE named src with one
// contribution row per call, shaped by contribution, and rollupUpsert
// folds it into the three tables in the same statement. After a bulk COPY,
// RebuildRollups recomputes them.

// rollupSums are the summed columns of a rollup row, in table order.
var rollupSums = []string{"calls", "input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens",
	"total_tokens", "cost_nano", "subscription_nano", "latency_sum", "latency_count", "success_calls",
	"unpriced_calls", "read_savings_nano", "write_premium_nano", "events_with_cache", "failed_cost_nano",
	"traced_calls", "output_over_16_calls", "output_over_256_calls"}

// contribution is what one events row (alias e) adds to its rollup rows:
// the key columns, then one value per rollupSums entry.
func contribution(e string) string {
	return strings.NewReplacer("e.", e+".").Replace(`e.project_id, e.ts, e.agent_name, e.model, e.billing,
    e.user_id, e.session_id, e.workflow, e.tool_name,
    1::bigint AS calls, e.input_tokens, e.output_tokens, e.cached_tokens,
    e.cache_write_tokens + e.cache_write_1h_tokens AS cache_write_tokens, e.total_tokens, e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END AS subscription_nano,
    coalesce(e.latency_ms, 0) AS latency_sum, (e.latency_ms IS NOT NULL)::int::bigint AS latency_count,
    e.success::int::bigint AS success_calls, (NOT e.priced)::int::bigint AS unpriced_calls,
    e.read_savings_nano, e.write_premium_nano,
    (e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int::bigint AS events_with_cache,
    CASE WHEN e.success THEN 0 ELSE e.cost_nano END AS failed_cost_nano,
    (e.trace_id IS NOT NULL)::int::bigint AS traced_calls,
    (e.output_tokens > 16)::int::bigint AS output_over_16_calls,
    (e.output_tokens > 256)::int::bigint AS output_over_256_calls`)
}

// weekBucket is the start of the Monday-aligned seven-day block of ts,
// the grid of analytics.WeekWidth.
const weekBucket = "date_bin('7 days', ts, timestamptz '2000-01-03 00:00:00+00')"

// rollupUpsert returns the CTEs (after a leading comma) that fold the src
// CTE into rollup_hour (rh), rollup_day (rd) and, for the user dimension,
// rollup_week (rw). The agent dimension gets
// one row per call under the empty agent name; tool_model (a tool call's
// tool and model together, ToolModelKey) one under the call's agent; every
// other dimension two, one under the call's agent and one under the empty
// name (all agents); a NULL key adds nothing. Every row is kept at all three grains (weekly:
// users only), so a report narrowed to one agent reads its partial edge
// hours as the all-agents reports do, at most half an hour of calls raw,
// instead of up to half a day of that agent's calls (migration 0045).
//
// The expansion into dimensions (12 rows per src row, 13 for a tool call) is summed per
// hour in one hash aggregation (rk); rh takes rk's hourly rows as they are
// and rd and rw sum rk's far fewer rows again per day and week. Summing the
// expansion once, instead of materializing it and grouping it three times,
// took a quarter off the merger's time (docs/analytics.md). Rows are upserted in no
// particular order: every statement that writes the rollups holds the
// merger's lock (lockState) first, so no two of them overlap.
func rollupUpsert() string {
	sums := make([]string, len(rollupSums))
	sets := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		sums[i] = fmt.Sprintf("sum(%s)::bigint", c)
		sets[i] = fmt.Sprintf("%s = %%[1]s.%s + excluded.%s", c, c, c)
	}
	upsert := func(table, sel string) string {
		return fmt.Sprintf(`
  INSERT INTO %[1]s (project_id, bucket, dim, key, agent_name, `+strings.Join(rollupSums, ", ")+`)
  `+sel+`
  ON CONFLICT (project_id, dim, agent_name, bucket, key) DO UPDATE SET `+strings.Join(sets, ", ")+`
  RETURNING 1`, table)
	}
	regroup := func(bucket, where string) string {
		return `SELECT project_id, ` + bucket + `, dim, key, agent, ` + strings.Join(sums, ", ") + `
  FROM rk ` + where + ` GROUP BY 1, 2, 3, 4, 5`
	}
	return `, rk AS (
  SELECT s.project_id, date_trunc('hour', s.ts, 'UTC') AS ts, d.dim, d.key, d.agent, ` + strings.Join(sumsOf("s"), ", ") + `
  FROM src s CROSS JOIN LATERAL (VALUES ('agent', s.agent_name, ''),
    ('model', s.model, s.agent_name), ('model', s.model, ''),
    ('billing', s.billing, s.agent_name), ('billing', s.billing, ''),
    ('user', s.user_id, s.agent_name), ('user', s.user_id, ''),
    ('session', s.session_id, s.agent_name), ('session', s.session_id, ''),
    ('workflow', s.workflow, s.agent_name), ('workflow', s.workflow, ''),
    ('tool', s.tool_name, s.agent_name), ('tool', s.tool_name, ''),
    ('tool_model', octet_length(s.tool_name) || ':' || s.tool_name || s.model, s.agent_name)) AS d(dim, key, agent)
  WHERE d.key IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5
), rh AS (` + upsert("rollup_hour", `SELECT project_id, ts, dim, key, agent, `+strings.Join(rollupSums, ", ")+` FROM rk`) + `
), rd AS (` + upsert("rollup_day", regroup("date_trunc('day', ts, 'UTC')", "")) + `
), rw AS (` + upsert("rollup_week", regroup(weekBucket, "WHERE dim = 'user'")) + `
)` + sessionUpsert(sums)
}

// sumsOf sums every rollup column of the rows aliased alias under its own
// name: sum(s.calls)::bigint AS calls, ...
func sumsOf(alias string) []string {
	out := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		out[i] = fmt.Sprintf("sum(%s.%s)::bigint AS %s", alias, c, c)
	}
	return out
}

// sessionUpsert returns the CTEs (after a leading comma) that fold src
// into rollup_session (a session's totals with the hours of its first and
// last call, migration 0014) and keep rollup_session_span the longest
// session's span. Delta rows (re-pricing) leave the hours as they are.
func sessionUpsert(sums []string) string {
	sets := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		sets[i] = fmt.Sprintf("%s = rollup_session.%s + excluded.%s", c, c, c)
	}
	return `, rs AS (
  INSERT INTO rollup_session (project_id, session_id, first_hour, last_hour, ` + strings.Join(rollupSums, ", ") + `)
  SELECT project_id, session_id, min(date_trunc('hour', ts, 'UTC')), max(date_trunc('hour', ts, 'UTC')), ` +
		strings.Join(sums, ", ") + `
  FROM src WHERE session_id IS NOT NULL GROUP BY 1, 2
  ON CONFLICT (project_id, session_id) DO UPDATE SET
    first_hour = least(rollup_session.first_hour, excluded.first_hour),
    last_hour = greatest(rollup_session.last_hour, excluded.last_hour), ` + strings.Join(sets, ", ") + `
  RETURNING project_id, last_hour - first_hour AS span
), rspan AS (
  INSERT INTO rollup_session_span (project_id, max_span)
  SELECT project_id, max(span) FROM rs GROUP BY 1 ORDER BY 1
  ON CONFLICT (project_id) DO UPDATE SET max_span = greatest(rollup_session_span.max_span, excluded.max_span)
  RETURNING 1
)`
}
