-- Sums per key, most expensive first, then by key in byte order; total_cost
-- is the cost of every key (before the limit), for shares. $21 limit (NULL:
-- all).
SELECT key, {{SUMS}}, (sum(sum(cost_nano)) OVER ())::bigint
FROM src
GROUP BY key
ORDER BY sum(cost_nano) DESC, key COLLATE "C"
LIMIT $21
