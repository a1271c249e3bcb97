-- Appended to full.sql when the keys and the time series share one
-- decomposition: the time buckets of $21 seconds of the agent rows (dim
-- 'bucket', key NULL).
UNION ALL
SELECT 'bucket', NULL, date_bin(make_interval(secs => $21), t, timestamptz '2000-01-01 00:00:00+00'), {{SUMS}}, NULL
FROM src WHERE dim = 'agent'
GROUP BY 3
