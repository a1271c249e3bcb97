package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestRunMovingDayLeavesNoEmptyRow: a run refreshed on one day, then
// moved to the day before by a late earlier call, leaves no rollup row
// (run_day, run_step_day, run_tool_day, run_tool_all_day) with no run on
// the day it left, and keeps its rows on its new day: a refresh deletes
// rows left empty only for the keys its change takes runs away from
// (emptiable), and recomputes the keys a run left.
func TestRunMovingDayLeavesNoEmptyRow(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	d1 := time.Date(2026, 6, 2, 0, 10, 0, 0, time.UTC)
	call := func(id string, ts time.Time) event.Event {
		return stored(p, id, "m", ts, 10, 1, func(e *event.Event) {
			e.TraceID, e.CostNano, e.Workflow, e.StepName, e.ToolName = "mv", 5, "w", "plan", "grep"
		})
	}
	mustWrite(t, db, call("c1", d1))
	mergeRuns(t, db)
	mustWrite(t, db, call("c0", d1.Add(-20*time.Minute)))
	mergeRuns(t, db)
	for _, table := range []string{"run_day", "run_step_day", "run_tool_day", "run_tool_all_day"} {
		var onD1, empty, onD0 int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE bucket = $2), count(*) FILTER (WHERE runs = 0),
  count(*) FILTER (WHERE bucket = $3 AND runs > 0) FROM `+table+` WHERE project_id = $1`,
			p, d1.Truncate(24*time.Hour), d1.Add(-24*time.Hour).Truncate(24*time.Hour)).Scan(&onD1, &empty, &onD0); err != nil {
			t.Fatal(err)
		}
		if onD1 != 0 || empty != 0 || onD0 == 0 {
			t.Errorf("%s: %d rows on the day the run left, %d with no run, %d on its day now", table, onD1, empty, onD0)
		}
	}
}
