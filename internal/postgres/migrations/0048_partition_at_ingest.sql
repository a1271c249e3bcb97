-- Ingest creates the partition of a recent month before it stores the
-- month's first calls (partitions_ingest.go), so a back-fill lands in its
-- months and DEFAULT stays empty. Before, a back-fill's calls landed in
-- DEFAULT until the partition job moved them out, under ACCESS EXCLUSIVE
-- on events (migration 0047): every project's reads and ingest waited for
-- the move, two seconds for a quarter of a million calls.
--
-- may_move false (ingest): a month DEFAULT already holds calls of is left
-- to the job, which moves them (may_move true, the one-argument form).
-- Several instances may create the same month at once: the lock on
-- DEFAULT orders them, and the later ones find the month made.
CREATE FUNCTION llmcost_events_partition(month_start timestamptz, may_move boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', month_start, 'UTC');
    hi timestamptz := date_trunc('month', month_start, 'UTC') + interval '1 month';
    name text := 'events_p' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMM');
    moving boolean;
BEGIN
    IF to_regclass(name) IS NOT NULL THEN
        RETURN false;
    END IF;
    BEGIN
        moving := EXISTS (SELECT 1 FROM events_default WHERE ts >= lo AND ts < hi);
        IF moving AND NOT may_move THEN
            RETURN false;
        END IF;
        -- events before DEFAULT, the order every read and ingest takes them in.
        IF moving THEN
            LOCK TABLE ONLY events IN ACCESS EXCLUSIVE MODE;
        END IF;
        -- No insert may reach DEFAULT between the move and ATTACH's check.
        LOCK TABLE events_default IN EXCLUSIVE MODE;
        IF to_regclass(name) IS NOT NULL THEN
            RETURN false; -- made while this waited for the lock
        END IF;
        IF NOT moving AND EXISTS (SELECT 1 FROM events_default WHERE ts >= lo AND ts < hi) THEN
            RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (ts >= %L AND ts < %L)', name, name || '_range', lo, hi);
        EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.01)', name);
        IF moving THEN
            EXECUTE format('WITH m AS (DELETE FROM events_default WHERE ts >= %L AND ts < %L RETURNING *) INSERT INTO %I SELECT * FROM m',
                lo, hi, name);
        END IF;
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (project_id, event_id)', name);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
    EXCEPTION WHEN invalid_object_definition THEN
        -- The month lies in events_legacy's range: nothing to create.
        RETURN false;
    END;
    RETURN true;
END $$;

-- The partition job's form: it moves what DEFAULT holds of the month.
CREATE OR REPLACE FUNCTION llmcost_events_partition(month_start timestamptz) RETURNS boolean
LANGUAGE sql AS $$ SELECT llmcost_events_partition(month_start, true) $$;
