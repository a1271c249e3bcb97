package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/semconv"
)

// TestRecomputedDayCountsEachOutcomeOnce drives, step by step, the
// interleaving that made TestRunsEqualARebuild count a run's success twice:
// run y's outcome is recorded (and y marked) while the merger refreshes
// only run x of the same (agent, day, workflow), and x's refresh moves x to
// the day before, so the key's maxima are recomputed from its runs. That
// recomputation must count y with the outcome y's runs row was counted
// with (none yet), since y's own refresh then adds the difference to the
// new outcome: counting the outcome recorded meanwhile counted it twice.
func TestRecomputedDayCountsEachOutcomeOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC)
	mustWrite(t, db, stored(p, "y1", "m", t0, 10, 1, tracedRun("y")),
		stored(p, "x1", "m", t0.Add(time.Hour), 10, 1, tracedRun("x")))
	mergeRuns(t, db)

	// x's new first call, a day earlier, moves x out of the key.
	mustWrite(t, db, stored(p, "x0", "m", t0.Add(-24*time.Hour), 10, 1, tracedRun("x")))
	if _, err := db.Pool.Exec(ctx, `UPDATE runs_pending SET marked_at = now() - interval '1 hour'
WHERE project_id = $1 AND trace_id = 'x'`, p); err != nil {
		t.Fatal(err)
	}
	// y's outcome arrives after x's mark settled: the merger's pass leaves
	// y, marked just now, for a later pass.
	if res, err := db.Write(ctx, nil, []semconv.Outcome{{ProjectID: p, TraceID: "y", Success: true}}); err != nil || res.Marked != 1 {
		t.Fatalf("the outcome marked %d runs (%v)", res.Marked, err)
	}
	if n, err := db.MergeRuns(ctx, time.Minute); err != nil || n != 1 {
		t.Fatalf("the settling merge refreshed %d runs, want x alone (%v)", n, err)
	}
	mergeRuns(t, db)

	for _, agent := range []string{"a", ""} {
		var runs, succeeded, failed, successCost int64
		if err := db.Pool.QueryRow(ctx, `SELECT runs, succeeded, failed, success_cost FROM run_day
WHERE project_id = $1 AND agent_name = $2 AND bucket = $3 AND workflow = 'wf'`, p, agent, t0.Truncate(24*time.Hour)).
			Scan(&runs, &succeeded, &failed, &successCost); err != nil {
			t.Fatal(err)
		}
		if runs != 1 || succeeded != 1 || failed != 0 || successCost != 100 {
			t.Fatalf("agent %q: %d runs, %d succeeded, %d failed, success cost %d; want y alone, succeeded at 100",
				agent, runs, succeeded, failed, successCost)
		}
	}
	maintained := readRunTables(t, db, p)
	if err := db.RebuildRuns(ctx, p); err != nil {
		t.Fatal(err)
	}
	if rebuilt := readRunTables(t, db, p); !reflect.DeepEqual(rebuilt, maintained) {
		t.Fatalf("maintained run tables differ from a rebuild\nmaintained %v\nrebuilt    %v", maintained, rebuilt)
	}
}

// TestRefreshStoresTheOutcomeItCounted: a refresh of runs no mark guards
// (a re-pricing refreshes every run whose calls it re-priced, marked or
// not) reads the runs' outcomes before it writes their rows; an outcome
// recorded in between (here while the refresh waits for a lock on y's
// runs row) must not be written into the row, whose outcome says what
// the rollups counted, or y's own refresh later finds nothing to add.
func TestRefreshStoresTheOutcomeItCounted(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	mustWrite(t, db, stored(p, "y1", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, tracedRun("y")))
	mergeRuns(t, db)

	hold, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, `SELECT 1 FROM runs WHERE project_id = $1 AND trace_id = 'y' FOR UPDATE`, p); err != nil {
		t.Fatal(err)
	}
	repriced := make(chan error, 1)
	go func() {
		_, err := db.Reprice(ctx, acmeCatalogue(), postgres.RepriceFilter{Start: t0, End: t0.Add(48 * time.Hour)}, false)
		repriced <- err
	}()
	// The re-pricing has read y's outcome (none) and waits to replace y's row.
	waitForLockWait(t, db, "DELETE FROM runs r")
	if _, err := db.Write(ctx, nil, []semconv.Outcome{{ProjectID: p, TraceID: "y", Success: true}}); err != nil {
		t.Fatal(err)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-repriced; err != nil {
		t.Fatal(err)
	}
	mergeRuns(t, db)

	var succeeded, successCost, cost int64
	if err := db.Pool.QueryRow(ctx, `SELECT d.succeeded, d.success_cost, r.cost_nano FROM run_day d
JOIN runs r ON r.project_id = d.project_id AND r.trace_id = 'y'
WHERE d.project_id = $1 AND d.agent_name = '' AND d.bucket = $2 AND d.workflow = 'wf'`, p, t0).
		Scan(&succeeded, &successCost, &cost); err != nil {
		t.Fatal(err)
	}
	if succeeded != 1 || successCost != cost || cost <= 100 {
		t.Fatalf("%d succeeded runs costing %d; want y, re-priced to %d", succeeded, successCost, cost)
	}
	maintained := readRunTables(t, db, p)
	if err := db.RebuildRuns(ctx, p); err != nil {
		t.Fatal(err)
	}
	if rebuilt := readRunTables(t, db, p); !reflect.DeepEqual(rebuilt, maintained) {
		t.Fatalf("maintained run tables differ from a rebuild\nmaintained %v\nrebuilt    %v", maintained, rebuilt)
	}
}

// waitForLockWait waits until a backend running a statement that begins
// with prefix waits for a lock.
func waitForLockWait(t *testing.T, db *postgres.DB, prefix string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := db.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
WHERE wait_event_type = 'Lock' AND starts_with(query, $1))`, prefix).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
	}
	t.Fatalf("no statement %q waited for a lock", prefix)
}
