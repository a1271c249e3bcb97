-- Sums per key, most expensive first, then by key in byte order; total_cost
-- is the cost of every key (before the limit), for shares. $21 limit (NULL:
-- all). The keys are ranked on their cost alone first: summing all fifteen
-- columns for every key (ten thousand sessions in 90 days) cost more than
-- the reading, and only the keys within the limit need them.
, ranked AS (
  SELECT key, sum(cost_nano) AS cost, sum(sum(cost_nano)) OVER () AS total
  FROM src
  GROUP BY key
  ORDER BY cost DESC, key COLLATE "C"
  LIMIT $21
)
SELECT src.key, {{SUMS}}, ranked.total::bigint
FROM src JOIN ranked ON ranked.key = src.key
GROUP BY src.key, ranked.cost, ranked.total
ORDER BY ranked.cost DESC, src.key COLLATE "C"
