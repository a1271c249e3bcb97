package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

func marked(t *testing.T, db *postgres.DB, project string) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM runs_pending WHERE project_id = $1`,
		project).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tracedRun puts a call in run trace of workflow wf, at a cost of 100.
func tracedRun(trace string) func(*event.Event) {
	return func(e *event.Event) { e.TraceID, e.Workflow, e.CostNano = trace, "wf", 100 }
}

// runsAnswer is a run report's answer, read in the background.
type runsAnswer struct {
	rows []postgres.RunRow
	err  error
}

// traceRowsAsync reads project p's runs within an hour of t0 (a run
// report, which refreshes their marks first) in the background.
func traceRowsAsync(db *postgres.DB, p string, t0 time.Time) <-chan runsAnswer {
	done := make(chan runsAnswer, 1)
	go func() {
		rows, err := db.TraceRows(context.Background(), postgres.RunQuery{ProjectID: p, Start: t0.Add(-time.Hour),
			End: t0.Add(time.Hour), Limit: 5})
		done <- runsAnswer{rows, err}
	}()
	return done
}

// mustWrite stores evs.
func mustWrite(t *testing.T, db *postgres.DB, evs ...event.Event) {
	t.Helper()
	if _, err := db.Write(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
}

// TestReportRightAfterIngestIncludesBatch: with no merger running, a run
// report read right after Write includes the batch (the read refreshes the
// project's marked runs first), for a run spanning two batches too.
func TestReportRightAfterIngestIncludesBatch(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p, other := newProject(t, db), newProject(t, db)
	t0 := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	traced := tracedRun
	write := func(evs ...event.Event) { mustWrite(t, db, evs...) }
	write(stored(p, "c1", "m", t0, 10, 1, traced("run1")), stored(other, "o1", "m", t0, 10, 1, traced("run9")))
	if marked(t, db, p) != 1 || marked(t, db, other) != 1 {
		t.Fatal("the batch marked no run")
	}
	// The merger leaves runs marked less than its settling time ago.
	if n, err := db.MergeRuns(ctx, time.Hour); err != nil || n != 0 || marked(t, db, p) != 1 {
		t.Fatalf("a merge settling for an hour refreshed %d runs (%v)", n, err)
	}
	q := postgres.RunQuery{ProjectID: p, Start: t0.Add(-time.Hour), End: t0.Add(24 * time.Hour), Limit: 10}
	traces := func() []postgres.RunRow {
		t.Helper()
		rows, err := db.TraceRows(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	if rows := traces(); len(rows) != 1 || rows[0].Calls != 1 || rows[0].CostNano != 100 {
		t.Fatalf("report right after the first batch: %+v", rows)
	}
	if marked(t, db, p) != 0 || marked(t, db, other) != 1 {
		t.Fatal("the report refreshed another project's runs or left its own marked")
	}
	// The run's second call comes in a later batch, after a merge.
	write(stored(p, "c2", "m", t0.Add(time.Minute), 10, 1, traced("run1")))
	if rows := traces(); len(rows) != 1 || rows[0].Calls != 2 || rows[0].CostNano != 200 {
		t.Fatalf("report right after the second batch: %+v", rows)
	}
	wf, err := db.WorkflowRows(ctx, q)
	if err != nil || len(wf) != 1 || wf[0].Runs != 1 || wf[0].CostNano != 200 || wf[0].Calls != 2 {
		t.Fatalf("workflow rows %+v (%v)", wf, err)
	}
	mergeRuns(t, db)
}

// TestMarkHeldByAnIngestInProgress: the merger skips a mark a transaction
// in progress holds (an ingest touching the run again: the mark may carry
// an acknowledged batch too), a report waits for it, then reads the run.
func TestMarkHeldByAnIngestInProgress(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Write(ctx, []event.Event{stored(p, "c1", "m", t0, 10, 1, func(e *event.Event) {
		e.TraceID, e.CostNano = "run1", 5
	})}, nil); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `UPDATE runs_pending SET calls = calls WHERE project_id = $1`, p); err != nil {
		t.Fatal(err)
	}
	if n, err := db.MergeRuns(ctx, 0); err != nil || n != 0 || marked(t, db, p) != 1 {
		t.Fatalf("the merger refreshed %d runs (%v) past a mark held by a transaction in progress", n, err)
	}
	done := traceRowsAsync(db, p, t0)
	select {
	case a := <-done:
		t.Fatalf("the report did not wait for the held mark: %+v %v", a.rows, a.err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a.err != nil || len(a.rows) != 1 || a.rows[0].CostNano != 5 {
		t.Fatalf("report after the holder committed: %+v %v", a.rows, a.err)
	}
	if marked(t, db, p) != 0 {
		t.Fatal("the report left the mark")
	}
}

// TestReportRefreshesFreeMarksWhileOneIsHeld: a run report whose window
// holds a mark another transaction holds (the merger's chunk, an ingest in
// progress) refreshes the window's other marks meanwhile, then waits for
// that one and includes it: run1 sorts first, so a read that locked its
// marks in order, waiting, would refresh run2 only after the holder.
func TestReportRefreshesFreeMarksWhileOneIsHeld(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	mustWrite(t, db, stored(p, "c1", "m", t0, 10, 1, func(e *event.Event) { e.TraceID, e.CostNano = "run1", 5 }),
		stored(p, "c2", "m", t0, 10, 1, func(e *event.Event) { e.TraceID, e.CostNano = "run2", 7 }))
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `UPDATE runs_pending SET calls = calls WHERE project_id = $1 AND trace_id = 'run1'`,
		p); err != nil {
		t.Fatal(err)
	}
	done := traceRowsAsync(db, p, t0)
	refreshed := func(trace string) bool {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE project_id = $1 AND trace_id = $2`,
			p, trace).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	for deadline := time.Now().Add(10 * time.Second); !refreshed("run2"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the report did not refresh run2 while run1's mark was held")
		}
	}
	select {
	case a := <-done:
		t.Fatalf("the report did not wait for the held mark: %+v %v", a.rows, a.err)
	default:
	}
	if refreshed("run1") {
		t.Fatal("run1 was refreshed past its holder")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || len(a.rows) != 2 || a.rows[0].CostNano != 7 || a.rows[1].CostNano != 5 {
		t.Fatalf("report after the holder committed: %+v %v", a.rows, a.err)
	}
	if marked(t, db, p) != 0 {
		t.Fatal("the report left a mark")
	}
}

// TestTwoInstancesIngestAndMerge: two stores on one database (two
// instances) each send batches of overlapping runs and run their merger
// concurrently; once merged the run tables equal a rebuild.
func TestTwoInstancesIngestAndMerge(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	var dbs [2]*postgres.DB
	for i := range dbs {
		db, err := postgres.Open(ctx, url, 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		dbs[i] = db
	}
	p := newProject(t, dbs[0])
	t0 := time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i, db := range dbs {
		rng := rand.New(rand.NewPCG(20, uint64(i)))
		batches := make([][]event.Event, 6)
		for j := range batches {
			batches[j] = randomRunCalls(rng, p, 50, t0)
		}
		wg.Go(func() {
			for _, b := range batches {
				if _, err := db.Write(ctx, b, nil); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range 6 {
				if _, err := db.MergeRuns(ctx, 0); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mergeRuns(t, dbs[1])
	merged := readRunTables(t, dbs[0], p)
	if len(merged["runs"]) < 15 {
		t.Fatalf("only %d runs", len(merged["runs"]))
	}
	if err := dbs[0].RebuildRuns(ctx, p); err != nil {
		t.Fatal(err)
	}
	if rebuilt := readRunTables(t, dbs[0], p); !reflect.DeepEqual(rebuilt, merged) {
		t.Fatalf("merged run tables differ from a rebuild\nmerged  %v\nrebuilt %v", merged, rebuilt)
	}
}

// totalsHook records the run totals the ingest transaction computes for
// every traced run of each batch.
type totalsHook struct {
	mu  sync.Mutex
	got map[string]guardrail.Run // by trace
	agt map[string]string
}

func (h *totalsHook) AfterWrite(ctx context.Context, tx *postgres.WriteTx, w postgres.Written) error {
	var traces []string
	for _, e := range w.Events {
		if e.TraceID != "" && !slices.Contains(traces, e.TraceID) {
			traces = append(traces, e.TraceID)
		}
	}
	byAgent, err := tx.RunTotals(ctx, w.Events[0].ProjectID, traces)
	h.mu.Lock()
	defer h.mu.Unlock()
	for agent, rs := range byAgent {
		for _, r := range rs {
			h.got[r.TraceID], h.agt[r.TraceID] = r, agent
		}
	}
	return err
}

// TestRunTotalsMatchTheRunsTable: the totals per-run guardrail limits are
// judged on, computed from the calls in the ingest transaction, equal the
// runs rows the merger builds (agent, tool calls, cost, last activity;
// runs with a workflow only), for runs spread over batches out of order,
// before and after a merge.
func TestRunTotalsMatchTheRunsTable(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	h := &totalsHook{got: map[string]guardrail.Run{}, agt: map[string]string{}}
	rng := rand.New(rand.NewPCG(30, 1))
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for i := range 8 { // sequential: each run's last batch sees all its calls
		if _, err := db.WriteWith(ctx, h, randomRunCalls(rng, p, 40, t0), nil); err != nil {
			t.Fatal(err)
		}
		if i == 3 { // later totals add marks to refreshed runs rows
			mergeRuns(t, db)
		}
	}
	mergeRuns(t, db)
	rows, err := db.Pool.Query(ctx, `SELECT agent_name, trace_id, tool_calls, cost_nano, last_end FROM runs
WHERE project_id = $1 AND workflow IS NOT NULL`, p)
	if err != nil {
		t.Fatal(err)
	}
	want, agents := map[string]guardrail.Run{}, map[string]string{}
	var agent string
	var r guardrail.Run
	if _, err := pgx.ForEachRow(rows, []any{&agent, &r.TraceID, &r.ToolCalls, &r.CostNano, &r.LastSeen}, func() error {
		want[r.TraceID], agents[r.TraceID] = r, agent
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) < 10 || len(h.got) != len(want) || !reflect.DeepEqual(h.agt, agents) {
		t.Fatalf("totals of %d runs in the ingest transaction, %d in the runs table; agents %v, want %v",
			len(h.got), len(want), h.agt, agents)
	}
	for trace, w := range want {
		g := h.got[trace]
		if g.ToolCalls != w.ToolCalls || g.CostNano != w.CostNano || !g.LastSeen.Equal(w.LastSeen) {
			t.Fatalf("run %s: totals in the ingest transaction %+v, runs table %+v", trace, g, w)
		}
	}
}
