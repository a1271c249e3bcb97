-- Retention of raw calls and of rollups (docs/scale.md, "Retention").
--
-- A project's own setting, in days; NULL takes the deployment's
-- (raw_retention_days, rollup_retention_days in the configuration). The
-- bounds are the API's rule (a day to ten years), kept here too so no
-- write can store another.
ALTER TABLE projects
    ADD COLUMN raw_retention_days    integer CHECK (raw_retention_days BETWEEN 1 AND 3650),
    ADD COLUMN rollup_retention_days integer CHECK (rollup_retention_days BETWEEN 1 AND 3650);

-- How far the retention job has dropped events' partitions: calls before
-- dropped_before are gone for every project, whatever its setting says
-- now (a project whose retention grew after a drop does not get its calls
-- back). One row.
CREATE TABLE raw_expiry (
    only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    dropped_before timestamptz
);
INSERT INTO raw_expiry DEFAULT VALUES;
