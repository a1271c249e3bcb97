package postgres_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
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

// TestTraceRowsSameAnswerForSparseAndBusyWindows: the most expensive runs
// are the same whichever plan answers (a window of at most 2,000 runs is
// sorted whole, a larger one walks the cost index), with ties broken by
// trace id, for all agents and for one.
func TestTraceRowsSameAnswerForSparseAndBusyWindows(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	const runs = 2600 // over ten days: a day holds 260, the ten 2,600
	type want struct {
		trace string
		cost  int64
		ts    time.Time
		agent string
	}
	var all []want
	var batch []event.Event
	for i := range runs {
		w := want{trace: fmt.Sprintf("r%04d", i), cost: int64(i*7919%1000) * 1000, ts: t0.Add(time.Duration(i) * 10 * 24 * time.Hour / runs),
			agent: fmt.Sprintf("agent-%d", i%3)}
		all = append(all, w)
		batch = append(batch, stored(p, "e-"+w.trace, "m", w.ts, 10, 1, func(e *event.Event) {
			e.TraceID, e.CostNano, e.AgentName = w.trace, w.cost, w.agent
		}))
		if len(batch) == 500 || i == runs-1 {
			mustWrite(t, db, batch...)
			batch = nil
		}
	}
	mergeRuns(t, db)
	expect := func(start, end time.Time, agent string, limit int) []string {
		var in []want
		for _, w := range all {
			if !w.ts.Before(start) && w.ts.Before(end) && (agent == "" || w.agent == agent) {
				in = append(in, w)
			}
		}
		slices.SortFunc(in, func(a, b want) int {
			if c := cmp.Compare(b.cost, a.cost); c != 0 {
				return c
			}
			return strings.Compare(a.trace, b.trace)
		})
		var out []string
		for _, w := range in[:min(limit, len(in))] {
			out = append(out, w.trace)
		}
		return out
	}
	for _, c := range []struct {
		name       string
		start, end time.Time
		agent      string
	}{
		{"one day (sorted whole)", t0.Add(24 * time.Hour), t0.Add(48 * time.Hour), ""},
		{"ten days (the cost index)", t0, t0.Add(10 * 24 * time.Hour), ""},
		{"ten days, one agent (sorted whole)", t0, t0.Add(10 * 24 * time.Hour), "agent-1"},
		{"an empty window", t0.Add(-48 * time.Hour), t0, ""},
	} {
		rows, err := db.TraceRows(ctx, postgres.RunQuery{ProjectID: p, Start: c.start, End: c.end, AgentName: c.agent, Limit: 50})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.TraceID)
		}
		if w := expect(c.start, c.end, c.agent, 50); !slices.Equal(got, w) {
			t.Errorf("%s: got %v\nwant %v", c.name, got, w)
		}
	}
}
