package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// TestFreshRunsInRefreshesOnlyTheWindow: a run report over a window
// refreshes the marks that can change it (a run starting in the window,
// one whose stored row starts in it and gets an earlier call from outside
// it) and leaves a back-fill of older runs to the merger; the reads are
// exact all the same.
func TestFreshRunsInRefreshesOnlyTheWindow(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	traced := tracedRun
	write := func(evs ...event.Event) { mustWrite(t, db, evs...) }
	write(stored(p, "moving-1", "m", now.Add(-time.Hour), 10, 1, traced("moving")))
	mergeRuns(t, db)
	write(stored(p, "new-1", "m", now.Add(-2*time.Hour), 10, 1, traced("new")),
		stored(p, "old-1", "m", now.Add(-30*24*time.Hour), 10, 1, traced("old")),
		// An earlier call moves the run "moving" out of the last day.
		stored(p, "moving-0", "m", now.Add(-3*24*time.Hour), 10, 1, traced("moving")))
	if marked(t, db, p) != 3 {
		t.Fatalf("%d runs marked, want 3", marked(t, db, p))
	}
	q := postgres.RunQuery{ProjectID: p, Start: now.Add(-24 * time.Hour), End: now, Limit: 10}
	rows, err := db.TraceRows(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].TraceID != "new" {
		t.Fatalf("runs of the last day: %+v, want only new (moving starts three days ago now)", rows)
	}
	if n := marked(t, db, p); n != 1 {
		t.Fatalf("%d marks left after a one-day report, want the month-old run's only", n)
	}
	q.Start = now.Add(-90 * 24 * time.Hour)
	if rows, err = db.TraceRows(ctx, q); err != nil || len(rows) != 3 {
		t.Fatalf("runs of 90 days: %+v (%v)", rows, err)
	}
	if n := marked(t, db, p); n != 0 {
		t.Fatalf("%d marks left after a 90-day report", n)
	}
}
