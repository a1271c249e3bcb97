package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
)

// CopyEvents loads events with COPY, the fastest way PostgreSQL takes rows.
// It exists as the baseline the ingest benchmark measures itself against
// and for bulk loads; it does not deduplicate and does NOT maintain the
// rollups: call RebuildRollups for the project after loading.
func (db *DB) CopyEvents(ctx context.Context, events []event.Event) (int64, error) {
	rows := make([][]any, len(events))
	for i := range events {
		rows[i] = copyRow(&events[i])
	}
	n, err := db.Pool.CopyFrom(ctx, pgx.Identifier{"events"}, copyNames(), pgx.CopyFromRows(rows))
	return n, translate(err, "events")
}
