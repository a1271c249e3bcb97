-- The rows of refreshed or rebuilt runs (postgres.queueRunInserts), one
-- element of each array per run, with the outcome each run is counted
-- with in the rollups (migration 0028), as the refresh read it.
--
-- Parameters:
--   @project_id      uuid[]         each run's project
--   @trace_id        text[]         its trace
--   @agent_name      text[]         the agent of its first call
--   @workflow        text[]         its workflow (NULL: none)
--   @first_ts        timestamptz[]  its first call's time
--   @first_event_id  text[]         its first call's event id
--   @last_end        timestamptz[]  the end of its last call
--   @calls           bigint[]       its calls
--   @cost_nano       bigint[]       their cost
--   @tool_calls      bigint[]       its tool calls
--   @failed_calls    bigint[]       its failed calls
--   @success_calls   bigint[]       its successful calls
--   @tokens          bigint[]       its tokens
--   @max_depth       bigint[]       its deepest span
--   @steps           bigint[]       its steps
--   @outcome         bool[]         the outcome it is counted with in the rollups (NULL: none)
--
-- The run_tags marker is the run's tags (migration 0035), its first call's
-- value of each declared key (postgres.runTagsOf); as written, none. The
-- insert returns each run's tags: the refresh adds the run to the daily
-- rollups of each.
INSERT INTO runs (project_id, trace_id, agent_name, workflow, first_ts, first_event_id, last_end,
  calls, cost_nano, tool_calls, failed_calls, success_calls, tokens, max_depth, steps, outcome, tags)
SELECT u.*, /* TEMPLATE_BEGIN: run_tags */ NULL::text[] /* TEMPLATE_END */
FROM unnest(@project_id::uuid[], @trace_id::text[], @agent_name::text[], @workflow::text[],
  @first_ts::timestamptz[], @first_event_id::text[], @last_end::timestamptz[], @calls::bigint[], @cost_nano::bigint[],
  @tool_calls::bigint[], @failed_calls::bigint[], @success_calls::bigint[], @tokens::bigint[], @max_depth::bigint[],
  @steps::bigint[], @outcome::bool[]) AS u(project_id, trace_id, agent_name, workflow, first_ts, first_event_id,
  last_end, calls, cost_nano, tool_calls, failed_calls, success_calls, tokens, max_depth, steps, outcome)
RETURNING project_id::text, trace_id, tags
