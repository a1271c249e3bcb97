-- The top $21 sessions of the window, over all agents (postgres.readSessionTop;
-- docs/analytics.md). window.sql's PRE placeholder (postgres.sessionPre) adds span, the
-- longest session of the project, and crossing, the sessions with merged
-- calls on both sides of a boundary of the whole days [$8, $9); window.sql
-- then reads only the crossing sessions' daily rows (DAY_KEYS), plus
-- the hourly rows, raw edges and tail as for any key: src holds every call
-- of the window but those of the sessions lying wholly inside [$8, $9),
-- whose merged calls rollup_session sums. A session crosses $8 when it
-- started before and ended at or after it, so it started within the span
-- before $8; likewise for $9.
, extra AS (
  SELECT key, {{NAMED_SUMS}} FROM src GROUP BY key
), inside AS (
  -- Costs are never negative: a session outside these and without extra
  -- calls is behind $21 sessions that are at least as costly.
  SELECT session_id FROM rollup_session
  WHERE project_id = $1 AND first_hour >= $8 AND last_hour < $9
  ORDER BY cost_nano DESC, session_id COLLATE "C"
  LIMIT $21
), cand AS (
  SELECT key FROM extra UNION SELECT session_id FROM inside
)
SELECT c.key, {{ADDED}}, 0::bigint
FROM cand c
LEFT JOIN extra x ON x.key = c.key
LEFT JOIN rollup_session s ON s.project_id = $1 AND s.session_id = c.key AND s.first_hour >= $8 AND s.last_hour < $9
ORDER BY 8 DESC, c.key COLLATE "C"
LIMIT $21
