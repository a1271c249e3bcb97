-- The tool rows of refreshed or rebuilt runs (postgres.queueRunInserts),
-- one element of each array per tool of a run; they carry the run's agent,
-- first call and workflow, so the tool report's edges read them by first
-- call alone (migration 0043).
--
-- Parameters:
--   @project_id     uuid[]         each tool's run's project
--   @trace_id       text[]         its run's trace
--   @tool_name      text[]         the tool
--   @calls          bigint[]       its calls
--   @cost_nano      bigint[]       their cost
--   @tokens         bigint[]       their tokens
--   @latency_sum    bigint[]       the sum of their latencies
--   @latency_count  bigint[]       how many of them have a latency
--   @success_calls  bigint[]       its successful calls
--   @agent_name     text[]         the run's agent
--   @first_ts       timestamptz[]  the run's first call's time
--   @workflow       text[]         the run's workflow (NULL: none)
INSERT INTO run_tools (project_id, trace_id, tool_name, calls, cost_nano, tokens,
  latency_sum, latency_count, success_calls, agent_name, first_ts, workflow)
SELECT * FROM unnest(@project_id::uuid[], @trace_id::text[], @tool_name::text[], @calls::bigint[],
  @cost_nano::bigint[], @tokens::bigint[], @latency_sum::bigint[], @latency_count::bigint[], @success_calls::bigint[],
  @agent_name::text[], @first_ts::timestamptz[], @workflow::text[])
