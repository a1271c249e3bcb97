-- The workflow rows of the runs whose first call lies in the window, with
-- their outcome counts (postgres.WorkflowRows): whole days from run_day,
-- the runs of the partial days at the edges from runs.
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
  SELECT x.workflow, x.runs, x.cost_nano, x.max_cost_nano, x.calls, x.steps, x.max_depth, x.success_calls,
    x.succeeded, x.failed, x.success_cost, x.failure_cost
  FROM run_day x WHERE /* TEMPLATE_BEGIN: days */ x.project_id = @project_id AND x.tag = @tag AND x.agent_name = @agent AND x.bucket >= @days_start AND x.bucket < @days_end /* TEMPLATE_END */
  UNION ALL
  SELECT coalesce(r.workflow, ''), 1, r.cost_nano, r.cost_nano, r.calls, r.steps, r.max_depth, r.success_calls,
    (o.success IS TRUE)::int, (o.success IS FALSE)::int, CASE WHEN o.success THEN r.cost_nano ELSE 0 END,
    CASE WHEN NOT o.success THEN r.cost_nano ELSE 0 END
  FROM runs r LEFT JOIN LATERAL (SELECT o.success FROM outcomes o
    WHERE o.project_id = r.project_id AND o.trace_id = r.trace_id OFFSET 0) o ON true
  WHERE /* TEMPLATE_BEGIN: edges */ r.project_id = @project_id AND ((r.first_ts >= @start AND r.first_ts < @days_start) OR (r.first_ts >= @days_end AND r.first_ts < @end)) /* TEMPLATE_END */
)
SELECT NULLIF(workflow, ''), sum(runs)::bigint, sum(cost_nano)::bigint, max(max_cost_nano), sum(calls)::bigint,
  sum(steps)::bigint, max(max_depth), sum(success_calls)::bigint, sum(succeeded)::bigint, sum(failed)::bigint,
  sum(success_cost)::bigint, sum(failure_cost)::bigint
FROM src GROUP BY workflow ORDER BY 3 DESC, workflow COLLATE "C" LIMIT @limit
