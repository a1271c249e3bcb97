-- Adds a run refresh's difference to the step or tool rollup rows per
-- workflow (postgres.queueDayDelta): one element of each array per key and
-- name, in key order, under the keys' locks.
--
-- Parameters:
--   @project_id     uuid[]         each key's project
--   @agent_name     text[]         its agent ('': every agent)
--   @tag            text[]         its tag ('': every run; key=value: the runs with it)
--   @bucket         timestamptz[]  its UTC day
--   @workflow       text[]         its workflow ('': none)
--   @name           text[]         the step or tool
--   @calls          bigint[]       the calls added
--   @runs           bigint[]       the runs added
--   @cost_nano      bigint[]       the calls' cost
--   @tokens         bigint[]       their tokens
--   @latency_sum    bigint[]       the sum of their latencies
--   @latency_count  bigint[]       how many of them have a latency
--   @success_calls  bigint[]       their successful calls
--
-- The table marker names the rollup: run_step_day as written, or
-- run_tool_day.
INSERT INTO /* TEMPLATE_BEGIN: table */ run_step_day /* TEMPLATE_END */ AS x (project_id, agent_name, tag, bucket, workflow, name, calls, runs, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT * FROM unnest(@project_id::uuid[], @agent_name::text[], @tag::text[], @bucket::timestamptz[], @workflow::text[],
  @name::text[], @calls::bigint[], @runs::bigint[], @cost_nano::bigint[], @tokens::bigint[], @latency_sum::bigint[],
  @latency_count::bigint[], @success_calls::bigint[])
ON CONFLICT (project_id, tag, agent_name, bucket, workflow, name) DO UPDATE SET calls = x.calls + excluded.calls,
  runs = x.runs + excluded.runs, cost_nano = x.cost_nano + excluded.cost_nano, tokens = x.tokens + excluded.tokens,
  latency_sum = x.latency_sum + excluded.latency_sum, latency_count = x.latency_count + excluded.latency_count,
  success_calls = x.success_calls + excluded.success_calls
