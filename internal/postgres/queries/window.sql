-- The rows of one report window, one dimension: rollup rows for the whole
-- hours and days of the window, raw events for its partial edge hours
-- (analytics.Decompose), and the tail: events not yet merged into the
-- rollups (tx ≥ the watermark $18, read in the same snapshot) whose time
-- falls in the span the rollups cover ($19..$20). Every report query starts
-- with this CTE and groups src. Parameters: $1 project, $2 dim, $3 agent
-- filter ('' = all), $4..$7 the two hourly spans, $8..$9 and $14..$15 the
-- two daily spans, $16..$17 the weekly span, $10..$13 the two raw spans.
-- The placeholders in double braces (ROLLUP_DIM, ROLLUP_KEY, ROLLUP_AGENT,
-- RAW_DIM, RAW_KEY, RAW_FROM, RAW_AGENT) are filled per dimension and
-- filter (postgres/analytics.go): a read of every agent's keys (PerAgent)
-- keys its rows by agent and key; one read of several dimensions ($2 an
-- array, /full) expands each raw event into one row per dimension. PRE
-- (CTEs before src) and DAY_KEYS (which keys' daily rows) serve the
-- session read (session_top.sql).
WITH {{PRE}}src AS (
  SELECT dim, {{ROLLUP_KEY}} AS key, bucket AS t, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM rollup_hour
  WHERE project_id = $1 AND {{ROLLUP_DIM}} AND {{ROLLUP_AGENT}}
    AND ((bucket >= $4 AND bucket < $5) OR (bucket >= $6 AND bucket < $7))
  UNION ALL
  SELECT dim, {{ROLLUP_KEY}}, bucket, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM rollup_day
  WHERE project_id = $1 AND {{ROLLUP_DIM}} AND {{ROLLUP_AGENT}} AND {{DAY_KEYS}}
    AND ((bucket >= $8 AND bucket < $9) OR (bucket >= $14 AND bucket < $15))
  UNION ALL
  SELECT dim, {{ROLLUP_KEY}}, bucket, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM rollup_week
  WHERE project_id = $1 AND {{ROLLUP_DIM}} AND {{ROLLUP_AGENT}} AND bucket >= $16 AND bucket < $17
  UNION ALL
  SELECT {{RAW_DIM}}, {{RAW_KEY}}, e.ts, 1, e.input_tokens, e.output_tokens, e.cached_tokens,
    e.cache_write_tokens + e.cache_write_1h_tokens, e.total_tokens, e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END, coalesce(e.latency_ms, 0),
    (e.latency_ms IS NOT NULL)::int, e.success::int, (NOT e.priced)::int,
    e.read_savings_nano, e.write_premium_nano,
    (e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int,
    CASE WHEN e.success THEN 0 ELSE e.cost_nano END, (e.trace_id IS NOT NULL)::int, (e.output_tokens > 16)::int,
    (e.output_tokens > 256)::int
  FROM {{RAW_FROM}}
  WHERE e.project_id = $1 AND {{RAW_AGENT}} AND {{RAW_KEY}} IS NOT NULL
    AND ((e.ts >= $10 AND e.ts < $11) OR (e.ts >= $12 AND e.ts < $13))
  UNION ALL
  SELECT {{RAW_DIM}}, {{RAW_KEY}}, e.ts, 1, e.input_tokens, e.output_tokens, e.cached_tokens,
    e.cache_write_tokens + e.cache_write_1h_tokens, e.total_tokens, e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END, coalesce(e.latency_ms, 0),
    (e.latency_ms IS NOT NULL)::int, e.success::int, (NOT e.priced)::int,
    e.read_savings_nano, e.write_premium_nano,
    (e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int,
    CASE WHEN e.success THEN 0 ELSE e.cost_nano END, (e.trace_id IS NOT NULL)::int, (e.output_tokens > 16)::int,
    (e.output_tokens > 256)::int
  FROM {{RAW_FROM}}
  WHERE e.project_id = $1 AND {{RAW_AGENT}} AND {{RAW_KEY}} IS NOT NULL
    AND e.tx >= $18 AND e.ts >= $19 AND e.ts < $20
)
