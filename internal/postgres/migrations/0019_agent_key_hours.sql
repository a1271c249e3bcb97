-- Agent view (docs/agent-view.md): the distinct developers and sessions of
-- every agent over a window. Whole days come from the per-agent daily rows
-- of rollup_day; the hours of the partial first and last days were read
-- from events, some 100,000 calls at 10 M events (300–450 ms for the agents
-- summary). This table says which users and sessions each agent had in
-- each hour, so only the partial first and last hours stay raw.
--
-- It holds keys, not sums: a key present in an hour stays present whatever
-- re-pricing does, so the merger adds rows with ON CONFLICT DO NOTHING
-- (no row versions to update) and only a rebuild deletes them. The
-- benchmark's 10 M calls give about one row per 20 calls.
CREATE TABLE agent_key_hour (
    project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name text NOT NULL,
    dim        text NOT NULL CHECK (dim IN ('user', 'session')),
    bucket     timestamptz NOT NULL,
    key        text NOT NULL,
    PRIMARY KEY (project_id, agent_name, dim, bucket, key)
);

-- llmcost_rebuild_agent_keys recomputes one project's rows (every
-- project's when p is NULL) from its events with tx < below, as
-- llmcost_rebuild_rollups does for the rollups; RebuildRollups calls both.
CREATE FUNCTION llmcost_rebuild_agent_keys(p uuid, below bigint) RETURNS void LANGUAGE sql AS $fn$
    DELETE FROM agent_key_hour WHERE p IS NULL OR project_id = p;
    INSERT INTO agent_key_hour (project_id, agent_name, dim, bucket, key)
    SELECT DISTINCT e.project_id, e.agent_name, v.dim, date_trunc('hour', e.ts, 'UTC'), v.key
    FROM events e CROSS JOIN LATERAL (VALUES ('user', e.user_id), ('session', e.session_id)) AS v(dim, key)
    WHERE (p IS NULL OR e.project_id = p) AND e.tx < below AND v.key IS NOT NULL;
$fn$;

-- Upgrade: fill it for the events already merged, under the merger's lock;
-- the merger adds the tail's keys as it folds the tail.
SET LOCAL work_mem = '256MB';
SELECT llmcost_rebuild_agent_keys(NULL, (SELECT watermark FROM rollup_state FOR UPDATE));
