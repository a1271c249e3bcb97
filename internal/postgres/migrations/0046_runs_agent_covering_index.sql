-- Guardrail compliance reads every run of its guarded agents that started
-- in the window (trace, tool calls, cost, last call; those with a
-- workflow): at 32 M calls some 123,000 runs of five agents over 90 days,
-- spread over the table's pages among every other agent's, 129 ms of heap
-- fetches. Carrying those columns in the index makes it an index-only
-- scan. Same key columns as the index it replaces, so every other read by
-- agent keeps its plan; the run merger already updates an index with
-- cost_nano in its key on every refresh (runs_project_cost_idx), so the
-- wider tuples add no index to maintain.
CREATE INDEX runs_project_agent_first_cover_idx ON runs (project_id, agent_name, first_ts)
    INCLUDE (workflow, tool_calls, cost_nano, last_end, trace_id);
DROP INDEX runs_project_agent_first_idx;
ALTER INDEX runs_project_agent_first_cover_idx RENAME TO runs_project_agent_first_idx;
