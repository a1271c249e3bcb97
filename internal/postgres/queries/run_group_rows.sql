-- Step or tool sums of the runs whose first call lies in the window
-- (postgres.StepRows, ToolRows): whole days from a daily rollup, the runs
-- of the partial days at the edges from their per-run rows. As written,
-- the steps by workflow; for tools, groupRows fills rollup
-- (run_tool_all_day or run_tool_day), per_run (run_tools), name
-- (tool_name), and groups by name alone (workflow, grouping, order).
--
-- The edge joins are LATERAL … OFFSET 0: a few thousand runs of the
-- partial days look up their rows by key, where the planner would
-- otherwise hash the project's whole run_steps or run_tools table.
--
-- Parameters:
--   @project_id  uuid         the project
--   @start       timestamptz  the window [start, end) of the runs' first calls
--   @end         timestamptz
--   @days_start  timestamptz  its whole UTC days [days_start, days_end)
--   @days_end    timestamptz
--   @agent       text         the agent ('': the rows over all agents)
--   @tag         text         a tag's key=value: its runs' rows ('': every run's)
--   @limit       bigint       the number of rows (NULL: all)
--
-- The days and edges markers add the agent and workflow filters
-- (RunQuery.rollupParts, which may name @workflow text); as written, all
-- agents and workflows.
WITH src AS (
  SELECT /* TEMPLATE_BEGIN: rollup_workflow */ x.workflow /* TEMPLATE_END */, x.name, x.calls, x.runs, x.cost_nano, x.tokens, x.latency_sum, x.latency_count, x.success_calls
  FROM /* TEMPLATE_BEGIN: rollup */ run_step_day /* TEMPLATE_END */ x WHERE /* TEMPLATE_BEGIN: days */ x.project_id = @project_id AND x.tag = @tag AND x.agent_name = @agent AND x.bucket >= @days_start AND x.bucket < @days_end /* TEMPLATE_END */
  UNION ALL
  SELECT coalesce(r.workflow, ''), s./* TEMPLATE_BEGIN: name */ step_name /* TEMPLATE_END */, s.calls, 1, s.cost_nano, s.tokens, s.latency_sum, s.latency_count,
    s.success_calls
  FROM runs r CROSS JOIN LATERAL (SELECT * FROM /* TEMPLATE_BEGIN: per_run */ run_steps /* TEMPLATE_END */ s
    WHERE s.project_id = r.project_id AND s.trace_id = r.trace_id OFFSET 0) s
  WHERE /* TEMPLATE_BEGIN: edges */ r.project_id = @project_id AND ((r.first_ts >= @start AND r.first_ts < @days_start) OR (r.first_ts >= @days_end AND r.first_ts < @end)) /* TEMPLATE_END */
)
SELECT /* TEMPLATE_BEGIN: workflow */ NULLIF(workflow, '') /* TEMPLATE_END */, name, sum(cost_nano)::bigint, sum(calls)::bigint, sum(runs)::bigint, sum(tokens)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint
FROM src GROUP BY /* TEMPLATE_BEGIN: grouping */ workflow, name /* TEMPLATE_END */ ORDER BY 3 DESC, /* TEMPLATE_BEGIN: order */ workflow COLLATE "C", name COLLATE "C" /* TEMPLATE_END */ LIMIT @limit
