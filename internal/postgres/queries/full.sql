-- /v1/analytics/full in one pass: src holds the agent and the model
-- dimensions of one decomposition ($2 = {agent, model}); each key's sums
-- (dim agent or model, b NULL, the dimension's total cost last), then the
-- time buckets of $21 seconds of the agent rows (dim 'bucket', key NULL).
-- Ordering and the limit are applied by the caller: the keys are few (one
-- row per agent and per model), and sorting them once in Go spares a second
-- grouping pass.
, g AS (
  SELECT dim, key, {{NAMED_SUMS}}
  FROM src GROUP BY dim, key
)
SELECT dim, key, NULL::timestamptz AS b, {{COLS}}, (sum(cost_nano) OVER (PARTITION BY dim))::bigint
FROM g
UNION ALL
SELECT 'bucket', NULL, date_bin(make_interval(secs => $21), t, timestamptz '2000-01-01 00:00:00+00'), {{SUMS}}, NULL
FROM src WHERE dim = 'agent'
GROUP BY 3
