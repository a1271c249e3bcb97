-- Runs refreshed outside the ingest transaction (docs/analytics.md, "Runs",
-- "Maintenance"). Refreshing a batch's runs and their day rollups inside the
-- ingest transaction held ingest of traced calls to about a quarter of raw
-- COPY: every batch recomputed each touched (agent, day, workflow) key from
-- its runs, and concurrent batches of a project queue behind each other's
-- commit (the month's spend row). The ingest statement now only marks each
-- run it touched here; the run merger (and any run report, before it reads)
-- refreshes the marked runs and removes a mark only while it still holds the
-- transaction id that the refresh saw, so a run touched again meanwhile stays
-- marked. Existing runs are current, so an upgrade starts with no mark.
CREATE TABLE runs_pending (
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    trace_id text NOT NULL,
    -- the id of the last transaction that marked the run
    tx bigint NOT NULL DEFAULT (pg_current_xact_id()::text)::bigint,
    PRIMARY KEY (project_id, trace_id)
);
