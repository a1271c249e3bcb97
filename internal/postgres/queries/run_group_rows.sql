-- Step or tool sums of the runs whose first call lies in the window
-- (postgres.StepRows, ToolRows): whole days from a daily rollup, the runs
-- of the partial days at the edges from their per-run rows. As written,
-- the steps by workflow; for tools, groupRows fills rollup
-- (run_tool_all_day or run_tool_day), per_run (run_tools), name
-- (tool_name), and groups by name alone (workflow, grouping, order).
--
-- The per-run rows carry their run's first call, agent and workflow
-- (migration 0043), so the edges are one range scan of
-- run_{steps,tools}_project_first_idx. Under a tag filter (the tags are
-- the run's only) groupRows fills edge_rows with the edge runs joined to
-- their rows, LATERAL … OFFSET 0: the value's few runs look up their rows
-- by key, where the planner would otherwise hash the project's whole
-- run_steps or run_tools table.
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
-- (RunQuery.rollupParts and childEdges, which may name @workflow text);
-- as written, all agents and workflows.
WITH src AS (
  SELECT /* TEMPLATE_BEGIN: rollup_workflow */ x.workflow /* TEMPLATE_END */, x.name, x.calls, x.runs, x.cost_nano, x.tokens, x.latency_sum, x.latency_count, x.success_calls
  FROM /* TEMPLATE_BEGIN: rollup */ run_step_day /* TEMPLATE_END */ x WHERE /* TEMPLATE_BEGIN: days */ x.project_id = @project_id AND x.tag = @tag AND x.agent_name = @agent AND x.bucket >= @days_start AND x.bucket < @days_end /* TEMPLATE_END */
  UNION ALL
  SELECT coalesce(s.workflow, ''), s./* TEMPLATE_BEGIN: name */ step_name /* TEMPLATE_END */, s.calls, 1, s.cost_nano, s.tokens, s.latency_sum, s.latency_count,
    s.success_calls
  FROM /* TEMPLATE_BEGIN: edge_rows */ run_steps s /* TEMPLATE_END */
  WHERE /* TEMPLATE_BEGIN: edges */ s.project_id = @project_id AND ((s.first_ts >= @start AND s.first_ts < @days_start) OR (s.first_ts >= @days_end AND s.first_ts < @end)) /* TEMPLATE_END */
)
SELECT /* TEMPLATE_BEGIN: workflow */ NULLIF(workflow, '') /* TEMPLATE_END */, name, sum(cost_nano)::bigint, sum(calls)::bigint, sum(runs)::bigint, sum(tokens)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint
FROM src GROUP BY /* TEMPLATE_BEGIN: grouping */ workflow, name /* TEMPLATE_END */ ORDER BY 3 DESC, /* TEMPLATE_BEGIN: order */ workflow COLLATE "C", name COLLATE "C" /* TEMPLATE_END */ LIMIT @limit
