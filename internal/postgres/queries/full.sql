-- /v1/analytics/full, the keys: src holds the agent and the model
-- dimensions of one decomposition ($2 = {agent, model}); each key's sums
-- (dim agent or model, b NULL, the dimension's total cost last). When the
-- time series has the same decomposition, full_buckets.sql follows and
-- adds its buckets from the same rows. Ordering and the limit are applied
-- by the caller: the keys are few (one row per agent and per model), and
-- sorting them once in Go spares a second grouping pass.
, g AS (
  SELECT dim, key, {{NAMED_SUMS}}
  FROM src GROUP BY dim, key
)
SELECT dim, key, NULL::timestamptz AS b, {{COLS}}, (sum(cost_nano) OVER (PARTITION BY dim))::bigint
FROM g
