-- Chargeback tags (docs/tags.md). A project declares a few tag keys; a
-- call's value of each (its metadata's key of that name) adds rows to the
-- tag rollups, which the spend reports read for a tag filter
-- (tag.team=payments) and for by/tag.team, as they read rollup_hour and
-- rollup_day for the built-in dimensions.

-- The declared keys. A key declared after calls were stored counts the
-- calls with tx below backfill_below only once the back-fill has reached
-- their time (ts below backfill_cursor); 0 once it is done. admitted is how
-- many distinct values tag_values holds for the key, overflow_calls how
-- many calls counted under '(other)' because the key had as many values
-- as it may.
CREATE TABLE project_tags (
    project_id       uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    tag              text NOT NULL,
    declared_at      timestamptz NOT NULL DEFAULT now(),
    backfill_below   bigint NOT NULL DEFAULT 0,
    backfill_cursor  timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    admitted         integer NOT NULL DEFAULT 0,
    overflow_calls   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, tag)
);
-- Index for the jobs that look for unfinished back-fills.
CREATE INDEX project_tags_backfill_idx ON project_tags (project_id) WHERE backfill_below > 0;

-- The values a key's rollups count under their own name; a value that
-- arrives once the key holds the maximum counts under '(other)'. Values are
-- only ever added (until the key is removed), so a call's value maps to the
-- same rollup key whenever it is read again (re-pricing, back-fill).
CREATE TABLE tag_values (
    project_id  uuid NOT NULL,
    tag         text NOT NULL,
    value       text NOT NULL,
    PRIMARY KEY (project_id, tag, value)
);

-- Tag rollups: one row per (project, tag, value, dim, bucket, key), where
-- dim is 'tag' (key '': the value's total, by/tag.<key>) or a built-in
-- dimension (a tag-filtered report by it), hourly and daily as the
-- all-agents rows of rollup_hour and rollup_day. Without foreign keys, like
-- the other rollups (0024): the merger writes them under its lock.
CREATE TABLE rollup_tag_hour (
    project_id             uuid NOT NULL,
    tag                    text NOT NULL,
    value                  text NOT NULL,
    dim                    text NOT NULL,
    bucket                 timestamptz NOT NULL,
    key                    text NOT NULL,
    calls                  bigint NOT NULL,
    input_tokens           bigint NOT NULL,
    output_tokens          bigint NOT NULL,
    cached_tokens          bigint NOT NULL,
    cache_write_tokens     bigint NOT NULL,
    total_tokens           bigint NOT NULL,
    cost_nano              bigint NOT NULL,
    subscription_nano      bigint NOT NULL,
    latency_sum            bigint NOT NULL,
    latency_count          bigint NOT NULL,
    success_calls          bigint NOT NULL,
    unpriced_calls         bigint NOT NULL,
    read_savings_nano      bigint NOT NULL,
    write_premium_nano     bigint NOT NULL,
    events_with_cache      bigint NOT NULL,
    failed_cost_nano       bigint NOT NULL,
    traced_calls           bigint NOT NULL,
    output_over_16_calls   bigint NOT NULL,
    output_over_256_calls  bigint NOT NULL,
    PRIMARY KEY (project_id, tag, dim, value, bucket, key)
);
CREATE TABLE rollup_tag_day (LIKE rollup_tag_hour INCLUDING ALL);
-- by/tag.<key> reads every value's totals of the window by bucket.
CREATE INDEX rollup_tag_hour_totals_idx ON rollup_tag_hour (project_id, tag, bucket) WHERE dim = 'tag';
CREATE INDEX rollup_tag_day_totals_idx ON rollup_tag_day (project_id, tag, bucket) WHERE dim = 'tag';

-- llmcost_tag_value is the rollup value of a call's metadata value v: a
-- string or number of 1 to 64 characters without control characters and
-- not starting with '(' (the reserved values) as it is, '(none)' when the
-- call has no value, '(invalid)' otherwise.
CREATE FUNCTION llmcost_tag_value(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE
        WHEN v IS NULL OR jsonb_typeof(v) = 'null' THEN '(none)'
        WHEN jsonb_typeof(v) IN ('string', 'number') AND (v #>> '{}') ~ '^[^(\x01-\x1f\x7f][^\x01-\x1f\x7f]{0,63}$'
            THEN v #>> '{}'
        ELSE '(invalid)'
    END
$fn$;

-- A deleted project's tag rows go with its other rollups (0024's trigger):
-- a merge that wrote them after the purge passed their table leaves none.
CREATE OR REPLACE FUNCTION llmcost_delete_project_rollups() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    t text;
BEGIN
    PERFORM 1 FROM rollup_state FOR UPDATE;
    FOREACH t IN ARRAY ARRAY['rollup_hour', 'rollup_day', 'rollup_week', 'rollup_session', 'rollup_session_span',
        'agent_key_hour', 'rollup_tag_hour', 'rollup_tag_day', 'tag_values'] LOOP
        EXECUTE format('DELETE FROM %I x USING gone g WHERE x.project_id = g.id', t);
    END LOOP;
    RETURN NULL;
END
$fn$;
