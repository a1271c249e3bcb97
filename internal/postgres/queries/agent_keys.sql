-- Distinct users and sessions per agent over a window split by
-- analytics.Decompose at day grain (postgres.ReadAgentFacts): the
-- per-agent daily rollup rows for the whole days, the agents' hourly keys
-- (agent_key_hour) for the whole hours, raw events for the partial hours,
-- and raw events of the tail (not yet merged, tx at or above the
-- watermark) over the part read from rollups. The agents are named so the
-- rollup reads range over the primary keys per agent instead of every
-- agent's rows.
--
-- Parameters:
--   @project_id       uuid         the project
--   @agents           text[]       the agents
--   @agent            text         one agent of them ('' = all of @agents)
--   @days_start       timestamptz  the whole days [start, end)
--   @days_end         timestamptz
--   @hour_head_start  timestamptz  the whole hours before the days
--   @hour_head_end    timestamptz
--   @hour_tail_start  timestamptz  the whole hours after them
--   @hour_tail_end    timestamptz
--   @raw_head_start   timestamptz  the partial first hour
--   @raw_head_end     timestamptz
--   @raw_tail_start   timestamptz  the partial last hour
--   @raw_tail_end     timestamptz
--   @watermark        bigint       the rollups' watermark
--   @rolled_start     timestamptz  the span the rollups cover, for the tail
--   @rolled_end       timestamptz
--
-- As written, @agents; the rollup_agent and raw_agent markers take @agent
-- alone when it is set. Both parameters stay named either way, so the
-- argument list does not change with the filter.
WITH keys AS (
  SELECT agent_name, dim, key FROM rollup_day
  WHERE project_id = @project_id AND dim IN ('user', 'session') AND /* TEMPLATE_BEGIN: rollup_agent */ agent_name = ANY(@agents) AND @agent::text = '' /* TEMPLATE_END */
    AND bucket >= @days_start AND bucket < @days_end
  UNION
  SELECT agent_name, dim, key FROM agent_key_hour
  WHERE project_id = @project_id AND /* TEMPLATE_BEGIN: rollup_agent */ agent_name = ANY(@agents) AND @agent::text = '' /* TEMPLATE_END */ AND dim IN ('user', 'session')
    AND ((bucket >= @hour_head_start AND bucket < @hour_head_end) OR (bucket >= @hour_tail_start AND bucket < @hour_tail_end))
  UNION
  SELECT e.agent_name, v.dim, v.key FROM events e
    CROSS JOIN LATERAL (VALUES ('user', e.user_id), ('session', e.session_id)) AS v(dim, key)
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ e.agent_name = ANY(@agents) /* TEMPLATE_END */ AND v.key IS NOT NULL
    AND e.ts >= @raw_head_start AND e.ts < @raw_head_end
  UNION
  SELECT e.agent_name, v.dim, v.key FROM events e
    CROSS JOIN LATERAL (VALUES ('user', e.user_id), ('session', e.session_id)) AS v(dim, key)
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ e.agent_name = ANY(@agents) /* TEMPLATE_END */ AND v.key IS NOT NULL
    AND e.ts >= @raw_tail_start AND e.ts < @raw_tail_end
  UNION
  SELECT e.agent_name, v.dim, v.key FROM events e
    CROSS JOIN LATERAL (VALUES ('user', e.user_id), ('session', e.session_id)) AS v(dim, key)
  WHERE e.project_id = @project_id AND /* TEMPLATE_BEGIN: raw_agent */ e.agent_name = ANY(@agents) /* TEMPLATE_END */ AND v.key IS NOT NULL
    AND e.tx >= @watermark AND e.ts >= @rolled_start AND e.ts < @rolled_end
)
SELECT agent_name, count(*) FILTER (WHERE dim = 'user'), count(*) FILTER (WHERE dim = 'session')
FROM keys GROUP BY agent_name
