package postgres

import (
	"context"
	"time"
)

// DailyUsage is one day's calls of a project for one model, billing type
// and agent: the grain of the FOCUS export.
type DailyUsage struct {
	Day       time.Time
	Model     string
	Billing   string
	AgentName string
	Calls     int64
	Tokens    int64
	CostNano  int64
	// ListNano is the calls at the catalogue's prices (their cost where
	// the catalogue did not price them).
	ListNano int64
}

// The rollups keep one dimension per row (a day's model rows, or its
// billing rows, never model and billing together) and no catalogue cost,
// so this reads the calls of the range, by events_project_ts_idx; the
// groups are few (days × models × billing types × agents).
const dailyUsageSQL = `
SELECT date_trunc('day', ts, 'UTC'), model, billing, agent_name, count(*), sum(total_tokens), sum(cost_nano),
    sum(CASE WHEN priced THEN coalesce(catalogue_cost_nano, cost_nano) ELSE cost_nano END)
FROM events
WHERE project_id = $1 AND ts >= $2 AND ts < $3
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4`

// DailyUsage sums a project's calls in [from, to) per UTC day, model,
// billing type and agent.
func (db *DB) DailyUsage(ctx context.Context, projectID string, from, to time.Time) ([]DailyUsage, error) {
	rows, err := db.Pool.Query(ctx, dailyUsageSQL, projectID, from, to)
	if err != nil {
		return nil, translate(err, "events")
	}
	defer rows.Close()
	var out []DailyUsage
	for rows.Next() {
		var u DailyUsage
		if err := rows.Scan(&u.Day, &u.Model, &u.Billing, &u.AgentName, &u.Calls, &u.Tokens, &u.CostNano, &u.ListNano); err != nil {
			return nil, translate(err, "events")
		}
		u.Day = u.Day.UTC()
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "events")
	}
	return out, nil
}
