-- The rows of one report window, one dimension: rollup rows for the whole
-- hours and days of the window, raw events for its partial edge hours
-- (analytics.Decompose) or, where that reads fewer calls, the edge hour's
-- rollup rows and, negated, the raw events of the hour's part outside the
-- window (analytics.Segments.Complement: groups whose calls net to zero
-- are no key), and the tail: events not yet merged into the
-- rollups (tx at or above the watermark, read in the same snapshot) whose
-- time falls in the span the rollups cover. Every report reads this as
-- its src (the window marker of by_key.sql and the others) and groups it.
--
-- Parameters:
--   @project_id        uuid         the project
--   @dim               text         the dimension (agent, model, billing, user, session, workflow, tool)
--   @agent             text         the agent filter ('' = all agents)
--   @hour_head_start   timestamptz  the first hourly span [start, end)
--   @hour_head_end     timestamptz
--   @hour_tail_start   timestamptz  the second hourly span
--   @hour_tail_end     timestamptz
--   @days_start        timestamptz  the first daily span
--   @days_end          timestamptz
--   @days_tail_start   timestamptz  the second daily span (after the weeks)
--   @days_tail_end     timestamptz
--   @weeks_start       timestamptz  the weekly span (user only)
--   @weeks_end         timestamptz
--   @raw_head_start    timestamptz  the partial first hour, read raw
--   @raw_head_end      timestamptz
--   @raw_tail_start    timestamptz  the partial last hour, read raw
--   @raw_tail_end      timestamptz
--   @minus_head_start  timestamptz  the first hour's part before the window, subtracted
--   @minus_head_end    timestamptz  (analytics.Segments.Complement; empty: none)
--   @minus_tail_start  timestamptz  the last hour's part after the window, subtracted
--   @minus_tail_end    timestamptz
--   @watermark         bigint       the rollups' watermark (rollup_state)
--   @rolled_start      timestamptz  the span the rollups cover, for the tail
--   @rolled_end        timestamptz
--
-- As written it reads the all-agents rows of dimension agent. The markers
-- are filled per dimension and filter (postgres/analytics.go): a read of
-- every agent's keys (PerAgent) keys its rows by agent and key; one read of
-- several dimensions (/full) takes @dims and expands each raw event into
-- one row per dimension; the session read (session_top.sql) reads only
-- the daily rows of the sessions crossing a day boundary (day_keys); a
-- read narrowed to a tag's value, or by a tag, reads the tag rollups
-- (the tables' markers) and the tag's value of each raw event.
SELECT dim, /* TEMPLATE_BEGIN: rollup_key */ key /* TEMPLATE_END */ AS key, bucket AS t, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM /* TEMPLATE_BEGIN: hour_table */ rollup_hour /* TEMPLATE_END */
  WHERE project_id = @project_id AND /* TEMPLATE_BEGIN: rollup_dim */ dim = @dim /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: rollup_agent */ agent_name = @agent /* TEMPLATE_END */
    AND ((bucket >= @hour_head_start AND bucket < @hour_head_end) OR (bucket >= @hour_tail_start AND bucket < @hour_tail_end))
  UNION ALL
  SELECT dim, /* TEMPLATE_BEGIN: rollup_key */ key /* TEMPLATE_END */, bucket, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM /* TEMPLATE_BEGIN: day_table */ rollup_day /* TEMPLATE_END */
  WHERE project_id = @project_id AND /* TEMPLATE_BEGIN: rollup_dim */ dim = @dim /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: rollup_agent */ agent_name = @agent /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: day_keys */ true /* TEMPLATE_END */
    AND ((bucket >= @days_start AND bucket < @days_end) OR (bucket >= @days_tail_start AND bucket < @days_tail_end))
  UNION ALL
  SELECT dim, /* TEMPLATE_BEGIN: rollup_key */ key /* TEMPLATE_END */, bucket, calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens,
    cost_nano, subscription_nano, latency_sum, latency_count, success_calls, unpriced_calls,
    read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano, traced_calls,
    output_over_16_calls, output_over_256_calls
  FROM /* TEMPLATE_BEGIN: week_table */ rollup_week /* TEMPLATE_END */
  WHERE project_id = @project_id AND /* TEMPLATE_BEGIN: rollup_dim */ dim = @dim /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: rollup_agent */ agent_name = @agent /* TEMPLATE_END */ AND bucket >= @weeks_start AND bucket < @weeks_end
  UNION ALL
  SELECT /* TEMPLATE_BEGIN: raw_dim */ @dim::text /* TEMPLATE_END */, /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */, e.ts, 1, e.input_tokens, e.output_tokens, e.cached_tokens,
    e.cache_write_tokens + e.cache_write_1h_tokens, e.total_tokens, e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END, coalesce(e.latency_ms, 0),
    (e.latency_ms IS NOT NULL)::int, e.success::int, (NOT e.priced)::int,
    e.read_savings_nano, e.write_premium_nano,
    (e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int,
    CASE WHEN e.success THEN 0 ELSE e.cost_nano END, (e.trace_id IS NOT NULL)::int, (e.output_tokens > 16)::int,
    (e.output_tokens > 256)::int
  FROM /* TEMPLATE_BEGIN: raw_from */ events e /* TEMPLATE_END */
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ @agent::text = '' /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */ IS NOT NULL
    AND ((e.ts >= @raw_head_start AND e.ts < @raw_head_end) OR (e.ts >= @raw_tail_start AND e.ts < @raw_tail_end))
  UNION ALL
  SELECT /* TEMPLATE_BEGIN: raw_dim */ @dim::text /* TEMPLATE_END */, /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */, e.ts, -1, -e.input_tokens, -e.output_tokens, -e.cached_tokens,
    -(e.cache_write_tokens + e.cache_write_1h_tokens), -e.total_tokens, -e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN -e.cost_nano ELSE 0 END, -coalesce(e.latency_ms, 0),
    -(e.latency_ms IS NOT NULL)::int, -e.success::int, -(NOT e.priced)::int,
    -e.read_savings_nano, -e.write_premium_nano,
    -(e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int,
    CASE WHEN e.success THEN 0 ELSE -e.cost_nano END, -(e.trace_id IS NOT NULL)::int, -(e.output_tokens > 16)::int,
    -(e.output_tokens > 256)::int
  FROM /* TEMPLATE_BEGIN: raw_from */ events e /* TEMPLATE_END */
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ @agent::text = '' /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */ IS NOT NULL
    AND ((e.ts >= @minus_head_start AND e.ts < @minus_head_end) OR (e.ts >= @minus_tail_start AND e.ts < @minus_tail_end))
  UNION ALL
  SELECT /* TEMPLATE_BEGIN: raw_dim */ @dim::text /* TEMPLATE_END */, /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */, e.ts, 1, e.input_tokens, e.output_tokens, e.cached_tokens,
    e.cache_write_tokens + e.cache_write_1h_tokens, e.total_tokens, e.cost_nano,
    CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END, coalesce(e.latency_ms, 0),
    (e.latency_ms IS NOT NULL)::int, e.success::int, (NOT e.priced)::int,
    e.read_savings_nano, e.write_premium_nano,
    (e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0)::int,
    CASE WHEN e.success THEN 0 ELSE e.cost_nano END, (e.trace_id IS NOT NULL)::int, (e.output_tokens > 16)::int,
    (e.output_tokens > 256)::int
  FROM /* TEMPLATE_BEGIN: raw_from */ events e /* TEMPLATE_END */
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ @agent::text = '' /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: raw_key */ e.agent_name /* TEMPLATE_END */ IS NOT NULL
    AND e.tx >= @watermark AND e.ts >= @rolled_start AND e.ts < @rolled_end
