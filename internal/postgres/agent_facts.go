package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// AgentDay is one agent's figures on one UTC day of a window, the ones the
// rollups do not keep: failed cost, traced calls, the largest output and
// the first and last call. Money is nano-USD.
type AgentDay struct {
	AgentName               string
	Day                     time.Time
	Calls, CostNano         int64
	FailedCalls, FailedCost int64
	TracedCalls, MaxOutput  int64
	FirstSeen, LastSeen     time.Time
}

// AgentDays reads, per agent (only agent when not empty) and UTC day, the
// calls of [from, to). It reads events through events (project_id,
// agent_name, ts): failed cost and the output maximum are not in the
// rollups (a rollup column would be the way to meet the 10 M benchmark).
func (db *DB) AgentDays(ctx context.Context, project, agent string, from, to time.Time) ([]AgentDay, error) {
	sql := `SELECT agent_name, date_trunc('day', ts AT TIME ZONE 'UTC'), count(*), sum(cost_nano),
  count(*) FILTER (WHERE NOT success), coalesce(sum(cost_nano) FILTER (WHERE NOT success), 0),
  count(trace_id), max(output_tokens), min(ts), max(ts)
FROM events WHERE project_id = $1 AND ts >= $2 AND ts < $3 AND ($4 = '' OR agent_name = $4)
GROUP BY 1, 2 ORDER BY agent_name COLLATE "C", 2`
	return collect(ctx, db, sql, []any{project, from, to, agent}, func(r pgx.CollectableRow) (AgentDay, error) {
		var d AgentDay
		err := r.Scan(&d.AgentName, &d.Day, &d.Calls, &d.CostNano, &d.FailedCalls, &d.FailedCost, &d.TracedCalls,
			&d.MaxOutput, &d.FirstSeen, &d.LastSeen)
		d.Day = time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), 0, 0, 0, 0, time.UTC)
		d.FirstSeen, d.LastSeen = d.FirstSeen.UTC(), d.LastSeen.UTC()
		return d, err
	})
}
