-- llmcost_tag_value (migration 0034) checked a value with the pattern
-- '^[^(\x01-\x1f\x7f][^\x01-\x1f\x7f]{0,63}$': PostgreSQL's regex engine
-- expands the bounded repeat, about 8 microseconds a call, and a tag read
-- evaluates the function several times for every raw call at a window's
-- edges (190 ms for an hour of calls at 10 M-call density). The same rule
-- with an unbounded repeat and the length checked apart costs about a
-- fifth. Same results for every input: 1 to 64 characters, the first not
-- '(' and none a control character; the tag rollups stay as they are.
CREATE OR REPLACE FUNCTION llmcost_tag_value(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE
        WHEN v IS NULL OR jsonb_typeof(v) = 'null' THEN '(none)'
        WHEN jsonb_typeof(v) IN ('string', 'number') AND (v #>> '{}') ~ '^[^(\x01-\x1f\x7f][^\x01-\x1f\x7f]*$'
            AND length(v #>> '{}') <= 64
            THEN v #>> '{}'
        ELSE '(invalid)'
    END
$fn$;
