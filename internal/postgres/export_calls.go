package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

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

// The texts of a first page and of a page after a key
// (queries/call_page.sql).
var (
	callPageSQL      = fillSQL(mustQuery("call_page.sql"), map[string]string{"columns": selectList()})
	callPageAfterSQL = fillSQL(mustQuery("call_page.sql"), map[string]string{"columns": selectList(),
		"after": "ts >= @after_ts AND (ts, event_id) > (@after_ts, @after_id) AND"})
)

// CallsPage reads one page of calls into buf (reused between pages, so an
// export holds at most one page whatever its length) and returns it.
// The connection is released before the caller writes the page out, so a
// slow client never holds a pooled connection.
func (db *DB) CallsPage(ctx context.Context, p CallPage, buf []event.Event) ([]event.Event, error) {
	sql, args := callPageSQL, pgx.StrictNamedArgs{"project_id": p.ProjectID, "from": p.From, "to": p.To, "limit": p.Limit}
	if p.After {
		sql, args["after_ts"], args["after_id"] = callPageAfterSQL, p.AfterTS, p.AfterID
	}
	rows, err := db.Pool.Query(ctx, sql, args)
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
