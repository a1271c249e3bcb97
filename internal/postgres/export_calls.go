package postgres

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// CallPage selects one page of a project's calls in [From, To), oldest
// first by (timestamp, event_id), strictly after the key (AfterTS,
// AfterID) when After is set: keyset pagination, so every page costs the
// same however deep the export is, and a page boundary is a place an
// export can resume from without a duplicate or a gap.
type CallPage struct {
	ProjectID string
	From, To  time.Time
	After     bool
	AfterTS   time.Time
	AfterID   string
	Limit     int
}

// The order is that of events_project_ts_idx (project_id, ts), read
// backwards; calls sharing a timestamp are sorted by event_id within it
// (an incremental sort of a handful of rows), which makes the order total.
var (
	callPageSQL = `
SELECT ` + selectList() + `
FROM events
WHERE project_id = $1 AND ts >= $2 AND ts < $3
ORDER BY ts, event_id
LIMIT $4`
	callPageAfterSQL = `
SELECT ` + selectList() + `
FROM events
WHERE project_id = $1 AND ts >= $5 AND ts < $3 AND ts >= $2 AND (ts, event_id) > ($5, $6)
ORDER BY ts, event_id
LIMIT $4`
)

// CallsPage reads one page of calls into buf (reused between pages, so an
// export holds at most one page whatever its length) and returns it.
// The connection is released before the caller writes the page out, so a
// slow client never holds a pooled connection.
func (db *DB) CallsPage(ctx context.Context, p CallPage, buf []event.Event) ([]event.Event, error) {
	sql, args := callPageSQL, []any{p.ProjectID, p.From, p.To, p.Limit}
	if p.After {
		sql, args = callPageAfterSQL, append(args, p.AfterTS, p.AfterID)
	}
	rows, err := db.Pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err, "events")
	}
	defer rows.Close()
	buf = buf[:0]
	dst := make([]any, len(eventCols))
	for rows.Next() {
		buf = append(buf, event.Event{})
		ev := &buf[len(buf)-1]
		var sc scratch
		for i, c := range eventCols {
			dst[i] = c.scan(ev, &sc)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, translate(err, "events")
		}
		ev.ProjectID = p.ProjectID
		ev.Timestamp = ev.Timestamp.UTC()
		if sc.meta != "" {
			ev.Metadata = []byte(sc.meta)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "events")
	}
	return buf, nil
}
