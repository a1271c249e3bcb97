package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// The session read (migration 0014, docs/analytics.md): a limited report
// by session over all agents with whole days takes the sessions lying
// wholly inside those days from rollup_session, most expensive first, and
// every other call of the window as any report does (hourly rows, the
// daily rows of the sessions crossing a day boundary, raw edges, tail).

// sessionTopSQL is session_top.sql with window.sql for the session
// dimension over all agents, reading only the crossing sessions' daily
// rows. They are looked up by key in an array: as `key IN (SELECT ...)`
// the planner, which cannot know how few sessions cross (their range
// depends on the span), hashed the crossing sessions against every
// session row of the days, and the days of a larger history held more.
var sessionTopSQL = fillSQL(mustQuery("session_top.sql"), map[string]string{
	"window": fillSQL(queryBody("window.sql"), map[string]string{
		"raw_key": rawKeys["session"], "day_keys": "key = ANY (ARRAY(SELECT session_id FROM crossing))"}),
})

// useSessionTop tells whether q is read by the session read: by session,
// over all agents, by key with a limit, and with whole days (the days are
// one span: the session dimension has no weekly rows).
func useSessionTop(q WindowQuery, s analytics.Segments) bool {
	return q.Dim == "session" && q.AgentName == "" && q.Tag == "" && q.BucketWidth == 0 && q.Limit > 0 &&
		!s.Days.Empty() && s.Weeks.Empty() && s.DaysTail.Empty()
}

// readSessionTop runs the session read with window.sql's args and limit.
func readSessionTop(ctx context.Context, tx rowsQuerier, args pgx.StrictNamedArgs, limit int) (WindowResult, error) {
	var res WindowResult
	args["limit"] = int64(limit)
	rows, err := tx.Query(ctx, sessionTopSQL, args)
	if err != nil {
		return res, err
	}
	err = collectKeysWithTotal(rows, &res)
	return res, err
}
