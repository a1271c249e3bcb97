-- The tool rows of refreshed or rebuilt runs (postgres.queueRunInserts),
-- one element of each array per tool of a run.
--
-- Parameters:
--   @project_id     uuid[]    each tool's run's project
--   @trace_id       text[]    its run's trace
--   @tool_name      text[]    the tool
--   @calls          bigint[]  its calls
--   @cost_nano      bigint[]  their cost
--   @tokens         bigint[]  their tokens
--   @latency_sum    bigint[]  the sum of their latencies
--   @latency_count  bigint[]  how many of them have a latency
--   @success_calls  bigint[]  its successful calls
INSERT INTO run_tools (project_id, trace_id, tool_name, calls, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT * FROM unnest(@project_id::uuid[], @trace_id::text[], @tool_name::text[], @calls::bigint[],
  @cost_nano::bigint[], @tokens::bigint[], @latency_sum::bigint[], @latency_count::bigint[], @success_calls::bigint[])
