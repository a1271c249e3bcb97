package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmcost/llmcost/internal/analytics"
)

// The session read (migration 0014, docs/analytics.md): a limited report
// by session over all agents with whole days takes the sessions lying
// wholly inside those days from rollup_session, most expensive first, and
// every other call of the window as any report does (hourly rows, the
// daily rows of the sessions crossing a day boundary, raw edges, tail).

// sessionPre are the CTEs before window.sql's src: span, the longest
// session of the project (0 when none), and crossing, the sessions with
// merged calls on both sides of $8 or of $9 (they started at most span
// before it, so rollup_session_first_idx finds them).
const sessionPre = `span AS (
  SELECT coalesce((SELECT max_span FROM rollup_session_span WHERE project_id = $1), interval '0') AS l
), crossing AS (
  SELECT s.session_id FROM span, rollup_session s
  WHERE s.project_id = $1 AND s.first_hour >= $8::timestamptz - span.l AND s.first_hour < $8 AND s.last_hour >= $8
  UNION
  SELECT s.session_id FROM span, rollup_session s
  WHERE s.project_id = $1 AND s.first_hour >= greatest($8::timestamptz, $9::timestamptz - span.l) AND s.first_hour < $9
    AND s.last_hour >= $9
), `

// sessionTopSQL is window.sql for the session dimension over all agents,
// reading only the crossing sessions' daily rows, then session_top.sql.
var sessionTopSQL = func() string {
	named := make([]string, len(rollupSums))
	added := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		named[i] = fmt.Sprintf("sum(%s)::bigint AS %s", c, c)
		added[i] = fmt.Sprintf("coalesce(x.%s, 0) + coalesce(s.%s, 0)", c, c)
	}
	r := strings.NewReplacer("{{PRE}}", sessionPre, "{{DAY_KEYS}}", "key IN (SELECT session_id FROM crossing)",
		"{{ROLLUP_DIM}}", "dim = $2", "{{ROLLUP_KEY}}", "key", "{{ROLLUP_AGENT}}", "agent_name = $3", "{{RAW_DIM}}", "$2::text",
		"{{RAW_KEY}}", rawKeys["session"], "{{RAW_FROM}}", "events e", "{{RAW_AGENT}}", "$3::text = ''",
		"{{NAMED_SUMS}}", strings.Join(named, ", "), "{{ADDED}}", strings.Join(added, ", "))
	return r.Replace(mustQuery("window.sql") + mustQuery("session_top.sql"))
}()

// useSessionTop tells whether q is read by the session read: by session,
// over all agents, by key with a limit, and with whole days (the days are
// one span: the session dimension has no weekly rows).
func useSessionTop(q WindowQuery, s analytics.Segments) bool {
	return q.Dim == "session" && q.AgentName == "" && q.BucketWidth == 0 && q.Limit > 0 &&
		!s.Days.Empty() && s.Weeks.Empty() && s.DaysTail.Empty()
}

// readSessionTop runs the session read with window.sql's args and limit.
func readSessionTop(ctx context.Context, tx rowsQuerier, args []any, limit int) (WindowResult, error) {
	var res WindowResult
	rows, err := tx.Query(ctx, sessionTopSQL, append(args, int64(limit))...)
	if err != nil {
		return res, err
	}
	err = collectKeysWithTotal(rows, &res)
	return res, err
}
