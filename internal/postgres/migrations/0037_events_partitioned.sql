-- events partitioned by month of ts (docs/scale.md, "Partitioned calls").
--
-- Each month is its own table, so the retention job expires raw calls by
-- dropping whole months (no row-by-row DELETE, no bloat), and each month
-- has its own primary key (project_id, event_id), which deduplicates a
-- replay in that month; replays across a month boundary are the insert's
-- probe (columns.go). No unique index spans all of history.
--
-- Upgrade in place: the existing table becomes the partition
-- events_legacy, covering everything before the first month boundary after
-- the upgrade, with its indexes and primary key as they are (the parent's
-- indexes attach them, nothing is rebuilt). The calls with a later ts (a
-- clock in the future) move to the partitions of their months. The cost is
-- two scans of the old table (that move, and the CHECK constraint validated
-- so that ATTACH needs no scan of its own), under the lock of the rename:
-- ingest waits for the migration (docs/scale.md has the figures).
--
-- A DEFAULT partition stores a call whose month has no partition yet (a
-- back-fill from last year, a clock years ahead): never refused. The
-- partition job (llmcost_events_partition, EnsureEventPartitions) creates
-- the months ahead and moves what DEFAULT holds of a month into its
-- partition.
ALTER TABLE events RENAME TO events_legacy;
ALTER TABLE events_legacy RENAME CONSTRAINT events_pkey TO events_legacy_pkey;
ALTER INDEX events_project_agent_ts_lat_idx RENAME TO events_legacy_project_agent_ts_lat_idx;
ALTER INDEX events_project_trace_idx RENAME TO events_legacy_project_trace_idx;
ALTER INDEX events_project_ts_idx RENAME TO events_legacy_project_ts_idx;
ALTER INDEX events_tx_brin RENAME TO events_legacy_tx_brin;

CREATE TABLE events (LIKE events_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (ts);
ALTER TABLE events ADD CONSTRAINT events_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX events_project_ts_idx ON events (project_id, ts DESC);
CREATE INDEX events_project_agent_ts_lat_idx ON events (project_id, agent_name, ts DESC) INCLUDE (latency_ms);
CREATE INDEX events_project_trace_idx ON events (project_id, trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX events_tx_brin ON events USING brin (tx) WITH (pages_per_range = 32, autosummarize = on);

CREATE TABLE events_default PARTITION OF events DEFAULT;
ALTER TABLE events_default ADD PRIMARY KEY (project_id, event_id);
ALTER TABLE events_default SET (autovacuum_vacuum_insert_scale_factor = 0.01);

-- llmcost_events_partition creates the partition of the month that starts
-- at month_start (UTC) unless it exists, moving the rows DEFAULT holds of
-- that month into it, and returns whether it created one. The new table
-- gets a CHECK of its range first, so ATTACH does not scan it; ATTACH
-- scans DEFAULT (empty but for calls of months without a partition).
CREATE FUNCTION llmcost_events_partition(month_start timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', month_start, 'UTC');
    hi timestamptz := date_trunc('month', month_start, 'UTC') + interval '1 month';
    name text := 'events_p' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMM');
BEGIN
    IF to_regclass(name) IS NOT NULL THEN
        RETURN false;
    END IF;
    BEGIN
        -- No insert may reach DEFAULT between the move and ATTACH's check.
        LOCK TABLE events_default IN EXCLUSIVE MODE;
        EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (ts >= %L AND ts < %L)', name, name || '_range', lo, hi);
        EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.01)', name);
        EXECUTE format('WITH m AS (DELETE FROM events_default WHERE ts >= %L AND ts < %L RETURNING *) INSERT INTO %I SELECT * FROM m',
            lo, hi, name);
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (project_id, event_id)', name);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
    EXCEPTION WHEN invalid_object_definition THEN
        -- The month lies in events_legacy's range: nothing to create.
        RETURN false;
    END;
    RETURN true;
END $$;

-- llmcost_replay_stored says whether a call (p, e) is stored with a ts
-- within 24 hours of t: the ingest's probe across a month boundary
-- (partitions.go). A function with enable_seqscan off so each probe reads
-- the partitions' primary keys whatever their statistics say: a month's
-- partition fills from empty faster than autovacuum analyzes it, and a
-- plan made while it looked empty scanned it whole for every probe (8
-- times slower ingest near a month boundary, docs/scale.md).
CREATE FUNCTION llmcost_replay_stored(p uuid, e text, t timestamptz) RETURNS boolean
LANGUAGE sql STABLE SET enable_seqscan = off AS $$
    SELECT EXISTS (SELECT 1 FROM events x WHERE x.project_id = p AND x.event_id = e
        AND x.ts >= t - interval '24 hours' AND x.ts <= t + interval '24 hours')
$$;

-- An empty old table (a new deployment) is dropped: the month of the
-- upgrade gets its partition like any other, and older calls go to
-- DEFAULT until the job creates their months.
DO $$
DECLARE
    bound timestamptz := date_trunc('month', now(), 'UTC') + interval '1 month';
BEGIN
    IF NOT EXISTS (SELECT 1 FROM events_legacy) THEN
        DROP TABLE events_legacy;
        PERFORM llmcost_events_partition(now());
    ELSE
        -- Calls from the future move to their months (DEFAULT beyond those).
        EXECUTE format('WITH m AS (DELETE FROM events_legacy WHERE ts >= %L RETURNING *) INSERT INTO events SELECT * FROM m', bound);
        EXECUTE format('ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_range CHECK (ts < %L)', bound);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
    END IF;
    PERFORM llmcost_events_partition(bound);
    PERFORM llmcost_events_partition(bound + interval '1 month');
END $$;
ANALYZE events;
