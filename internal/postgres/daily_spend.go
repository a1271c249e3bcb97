package postgres

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
)

// AgentDay is one agent's metered spend (cost less subscription-billed
// cost, as the month counter and budgets count it) on one UTC day.
type AgentDay struct {
	Agent string
	Day   time.Time // midnight UTC
	Nano  int64
}

// DailySpend reads each agent's metered spend per UTC day of [from, to),
// from the daily rollups with the hours and calls at the edges and the
// calls not yet merged, in one snapshot, as every spend report reads: the
// days are exact. Days without calls are absent.
func (db *DB) DailySpend(ctx context.Context, projectID string, from, to time.Time) ([]AgentDay, error) {
	w := analytics.Span{Start: from.UTC(), End: to.UTC()}
	if w.Empty() {
		return nil, nil
	}
	res, err := db.ReadWindows(ctx, WindowQuery{ProjectID: projectID, Dim: "agent",
		Segments: analytics.Decompose(w, analytics.Day), BucketWidth: 24 * time.Hour, KeyBuckets: true})
	if err != nil {
		return nil, err
	}
	out := make([]AgentDay, 0, len(res[0].KeyPoints))
	for _, p := range res[0].KeyPoints {
		out = append(out, AgentDay{Agent: p.Key, Day: p.Bucket.UTC(), Nano: p.CostNano - p.SubscriptionNano})
	}
	return out, nil
}
