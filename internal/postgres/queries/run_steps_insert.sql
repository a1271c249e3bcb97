-- The step rows of refreshed or rebuilt runs (postgres.queueRunInserts),
-- one element of each array per step of a run; they carry the run's agent
-- and first call, and the step's tool calls and models, for the agent
-- detail (migration 0021), and the run's workflow, so the step report's
-- edges read them by first call alone (migration 0043).
--
-- Parameters:
--   @project_id     uuid[]         each step's run's project
--   @trace_id       text[]         its run's trace
--   @step_name      text[]         the step
--   @calls          bigint[]       its calls
--   @cost_nano      bigint[]       their cost
--   @tokens         bigint[]       their tokens
--   @latency_sum    bigint[]       the sum of their latencies
--   @latency_count  bigint[]       how many of them have a latency
--   @success_calls  bigint[]       its successful calls
--   @agent_name     text[]         the run's agent
--   @first_ts       timestamptz[]  the run's first call's time
--   @workflow       text[]         the run's workflow (NULL: none)
--   @tool_calls     bigint[]       its tool calls
--   @models         text[]         its models, each element one text[] literal (textArrayLiteral)
INSERT INTO run_steps (project_id, trace_id, step_name, calls, cost_nano, tokens,
  latency_sum, latency_count, success_calls, agent_name, first_ts, workflow, tool_calls, models)
SELECT p, t, n, c, co, tk, ls, lc, sc, a, f, w, tc, m::text[]
FROM unnest(@project_id::uuid[], @trace_id::text[], @step_name::text[], @calls::bigint[], @cost_nano::bigint[],
  @tokens::bigint[], @latency_sum::bigint[], @latency_count::bigint[], @success_calls::bigint[], @agent_name::text[],
  @first_ts::timestamptz[], @workflow::text[], @tool_calls::bigint[], @models::text[])
  AS u(p, t, n, c, co, tk, ls, lc, sc, a, f, w, tc, m)
