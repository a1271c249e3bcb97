package postgres

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// EventFilter selects a page of a project's events, newest first.
type EventFilter struct {
	ProjectID string
	AgentName string
	Limit     int
	Offset    int
	// ExpiredBefore hides the calls before it (the project's retention:
	// Retention.RawExpiredBefore); nil hides none.
	ExpiredBefore *time.Time
}

var listEventsSQL = `
SELECT ` + selectList() + `
FROM events
WHERE project_id = $1 AND ($2 = '' OR agent_name = $2) AND ($5::timestamptz IS NULL OR ts >= $5)
ORDER BY ts DESC, event_id
LIMIT $3 OFFSET $4`

// ListEvents returns one page of events and whether more follow.
func (db *DB) ListEvents(ctx context.Context, f EventFilter) ([]event.Event, bool, error) {
	rows, err := db.Pool.Query(ctx, listEventsSQL, f.ProjectID, f.AgentName, f.Limit+1, f.Offset, f.ExpiredBefore)
	if err != nil {
		return nil, false, translate(err, "events")
	}
	defer rows.Close()
	out := make([]event.Event, 0, f.Limit)
	for rows.Next() {
		var ev event.Event
		var sc scratch
		dst := make([]any, len(eventCols))
		for i, c := range eventCols {
			dst[i] = c.scan(&ev, &sc)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, false, translate(err, "events")
		}
		meta := sc.meta
		ev.ProjectID = f.ProjectID
		ev.Timestamp = ev.Timestamp.UTC()
		if meta != "" {
			ev.Metadata = []byte(meta)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, false, translate(err, "events")
	}
	hasMore := len(out) > f.Limit
	if hasMore {
		out = out[:f.Limit]
	}
	return out, hasMore, nil
}
