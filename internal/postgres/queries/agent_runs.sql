-- The runs per agent (the agent of a run's first call) of the window
-- (postgres.ReadAgentRuns), summed like workflow_rows.sql sums them per
-- workflow: whole days from run_day's per-agent rows, the edges from runs.
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
  SELECT x.agent_name, x.runs, x.cost_nano, x.calls FROM run_day x WHERE /* TEMPLATE_BEGIN: days */ x.project_id = @project_id AND x.tag = @tag AND x.agent_name = @agent AND x.bucket >= @days_start AND x.bucket < @days_end /* TEMPLATE_END */
  UNION ALL
  SELECT r.agent_name, 1, r.cost_nano, r.calls FROM runs r WHERE /* TEMPLATE_BEGIN: edges */ r.project_id = @project_id AND ((r.first_ts >= @start AND r.first_ts < @days_start) OR (r.first_ts >= @days_end AND r.first_ts < @end)) /* TEMPLATE_END */
)
SELECT agent_name, sum(runs)::bigint, sum(cost_nano)::bigint, sum(calls)::bigint FROM src GROUP BY agent_name
LIMIT @limit
