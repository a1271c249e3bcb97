package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestRunRefreshReadsCallsFromEveryMonth: the run merger reads a run's
// calls between the earliest first call and the latest end of its row and
// its mark, so the calls that arrive later with earlier or later times,
// in other months' partitions, still count: a run refreshed with two calls
// of this month gets one back-dated 70 days, one a minute later, then one
// back-dated 100 days, each merged in turn.
func TestRunRefreshReadsCallsFromEveryMonth(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	now := time.Now().UTC().Truncate(time.Second)
	traced := func(id string, at time.Time, cost int64) event.Event {
		e := callAt(p, id, at)
		e.TraceID, e.CostNano, e.Priced = "r", cost, true
		return e
	}
	var wantCost int64
	for i, batch := range [][]event.Event{
		{traced("c1", now.Add(-2*time.Hour), 1), traced("c2", now.Add(-time.Hour), 2)},
		{traced("c3", now.Add(-70*24*time.Hour), 4), traced("c4", now.Add(-time.Hour+time.Minute), 8)},
		{traced("c5", now.Add(-100*24*time.Hour), 16)},
	} {
		if _, err := db.Write(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
		for _, e := range batch {
			wantCost += e.CostNano
		}
		mergeRuns(t, db)
		var calls, cost int64
		var first time.Time
		if err := db.Pool.QueryRow(ctx, `SELECT calls, cost_nano, first_ts FROM runs WHERE project_id = $1 AND trace_id = 'r'`,
			p).Scan(&calls, &cost, &first); err != nil {
			t.Fatal(err)
		}
		wantFirst := map[int]time.Time{0: now.Add(-2 * time.Hour), 1: now.Add(-70 * 24 * time.Hour), 2: now.Add(-100 * 24 * time.Hour)}[i]
		wantCalls := map[int]int64{0: 2, 1: 4, 2: 5}[i]
		if calls != wantCalls || cost != wantCost || !first.Equal(wantFirst) {
			t.Fatalf("after batch %d: run of %d calls, %d nano, first %s; want %d, %d, %s", i+1, calls, cost, first.UTC(),
				wantCalls, wantCost, wantFirst)
		}
	}
	if a, b := partitionOf(t, db, p, "c1"), partitionOf(t, db, p, "c5"); a == b {
		t.Fatalf("c1 and c5 in one partition %s: the test needs the run across months", a)
	}
}
