package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/semconv"
)

// readRunTables reads every run table of a project as text rows, in key
// order, for comparing a maintained state with a rebuilt one.
// mergeRuns refreshes every run ingest marked, as the extension's merger
// does every second, for tests that read the run tables directly.
func mergeRuns(t *testing.T, db *postgres.DB) {
	t.Helper()
	if _, err := db.MergeRuns(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	var marked int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM runs_pending`).Scan(&marked); err != nil || marked != 0 {
		t.Fatalf("%d runs still marked after a merge with no ingest running (%v)", marked, err)
	}
}

func readRunTables(t *testing.T, db *postgres.DB, project string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, order := range map[string]string{"runs": "trace_id", "run_steps": "trace_id, step_name",
		"run_tools": "trace_id, tool_name", "run_repeats": "trace_id, seq",
		"run_day": "tag, agent_name, bucket, workflow", "run_step_day": "tag, agent_name, bucket, workflow, name",
		"run_tool_day": "tag, agent_name, bucket, workflow, name", "run_tool_all_day": "tag, agent_name, bucket, name"} {
		rows, err := db.Pool.Query(context.Background(),
			fmt.Sprintf(`SELECT x::text FROM %s x WHERE project_id = $1 ORDER BY %s`, table, order), project)
		if err != nil {
			t.Fatal(err)
		}
		out[table], err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// randomRunCalls are calls of a few runs: nested spans, steps, tools and
// request hashes drawn from small pools so identical calls repeat, event
// ids from a small pool so batches repeat each other.
func randomRunCalls(rng *rand.Rand, project string, n int, t0 time.Time) []event.Event {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	out := make([]event.Event, n)
	for i := range out {
		id := rng.IntN(300)
		e := event.Event{ProjectID: project, EventID: fmt.Sprintf("e%d", id), AgentName: pick("a1", "a2"),
			Model: pick("m1", "m2"), InputTokens: int64(rng.IntN(3) * 100), OutputTokens: 5,
			CostNano: rng.Int64N(1_000_000), Priced: true, Success: rng.IntN(4) > 0, Source: "batch",
			Timestamp:    t0.Add(time.Duration(id%50) * time.Minute),
			TraceID:      fmt.Sprintf("t%d", id%23),
			SpanID:       pick("", "s1", "s2", "s3"),
			ParentSpanID: pick("", "s1", "s2"),
			Workflow:     pick("", "w1", "w2"), StepName: pick("", "plan", "act"), ToolName: pick("", "web"),
			RequestHash: pick("", "h1")}
		e.TotalTokens = e.InputTokens + e.OutputTokens
		if rng.IntN(2) > 0 {
			l := rng.Int64N(5000)
			e.LatencyMS = &l
		}
		if rng.IntN(6) == 0 {
			e.TraceID = "" // untraced: belongs to no run
		}
		// A team by event id (a replay carries its original's), none for
		// some: a run's value is its first call's, which a later batch
		// can move.
		if id%4 != 0 {
			e.Metadata = fmt.Appendf(nil, `{"team":"t%d"}`, id%3)
		}
		out[i] = e
	}
	return out
}

// TestRunsEqualARebuild sends random overlapping batches concurrently in
// pairs (runs spread over batches, out of order, duplicates) while two run
// mergers refresh the marked runs beside them, as two instances would, and
// checks that the run tables, once merged, equal a rebuild from the stored
// events; a re-pricing keeps them equal; deleting the project removes them.
func TestRunsEqualARebuild(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	// Declared, so the runs carry a team and the rollups keep rows per
	// team (migration 0040), which the rebuild must equal too.
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(10, 10))
	t0 := time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC)
	for round := 0; round < 6; round++ {
		a, b := randomRunCalls(rng, p, 60, t0), randomRunCalls(rng, p, 60, t0)
		errs := make(chan error, 4)
		for range 2 {
			go func() { _, err := db.MergeRuns(ctx, 0); errs <- err }()
		}
		var oc []semconv.Outcome
		for range 4 {
			oc = append(oc, semconv.Outcome{ProjectID: p, TraceID: fmt.Sprintf("t%d", rng.IntN(25)), Success: rng.IntN(2) == 0})
		}
		go func() { _, err := db.Write(ctx, a, oc[:2]); errs <- err }()
		go func() { _, err := db.Write(ctx, b, oc[2:]); errs <- err }()
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	mergeRuns(t, db)
	var declared int
	if err := db.Pool.QueryRow(ctx, `SELECT sum(succeeded + failed) FROM run_day WHERE project_id = $1 AND agent_name = ''`, p).
		Scan(&declared); err != nil || declared == 0 {
		t.Fatalf("no run with an outcome in the rollups (%v)", err)
	}
	var tagged int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM run_day WHERE project_id = $1 AND tag LIKE 'team=t%'`, p).
		Scan(&tagged); err != nil || tagged == 0 {
		t.Fatalf("no rollup row of a team (%v)", err)
	}
	maintained := readRunTables(t, db, p)
	if len(maintained["runs"]) < 20 || len(maintained["run_repeats"]) == 0 || len(maintained["run_steps"]) == 0 ||
		len(maintained["run_tool_all_day"]) == 0 {
		t.Fatalf("the random runs are too thin to test anything: %d runs, %d repeats",
			len(maintained["runs"]), len(maintained["run_repeats"]))
	}
	if err := db.RebuildRuns(ctx, p); err != nil {
		t.Fatal(err)
	}
	if rebuilt := readRunTables(t, db, p); !reflect.DeepEqual(rebuilt, maintained) {
		t.Fatalf("maintained run tables differ from a rebuild\nmaintained %v\nrebuilt    %v", maintained, rebuilt)
	}
	// The upgrade path: emptied run tables and the backfill mark of
	// migration 0010 are filled once by BackfillRuns.
	if _, err := db.Pool.Exec(ctx, `DELETE FROM runs; DELETE FROM run_day; DELETE FROM run_step_day;
DELETE FROM run_tool_day; DELETE FROM run_tool_all_day; INSERT INTO pending_backfills (name) VALUES ('runs')`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.BackfillRuns(ctx); err != nil || n == 0 {
		t.Fatalf("backfill: %d projects (%v)", n, err)
	}
	if filled := readRunTables(t, db, p); !reflect.DeepEqual(filled, maintained) {
		t.Fatal("BackfillRuns differs from the maintained run tables")
	}
	if n, err := db.BackfillRuns(ctx); err != nil || n != 0 {
		t.Fatalf("a second backfill ran over %d projects (%v)", n, err)
	}
	// A re-sent batch changes nothing.
	if _, err := db.Write(ctx, randomRunCalls(rand.New(rand.NewPCG(10, 10)), p, 60, t0), nil); err != nil {
		t.Fatal(err)
	}
	var marked bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs_pending)`).Scan(&marked); err != nil || marked {
		t.Fatalf("a duplicate batch marked runs (%v)", err)
	}
	if again := readRunTables(t, db, p); !reflect.DeepEqual(again, maintained) {
		t.Fatal("a duplicate batch changed the run tables")
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, p); err != nil {
		t.Fatal(err)
	}
	for table, rows := range readRunTables(t, db, p) {
		if len(rows) != 0 {
			t.Fatalf("%d %s rows outlive their project", len(rows), table)
		}
	}
}

// TestRepriceRefreshesRuns re-prices a run's unknown-model call and checks
// its run total moved with it.
func TestRepriceRefreshesRuns(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	traced := func(e *event.Event) { e.TraceID, e.Workflow = "run1", "wf" }
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, traced),
		stored(p, "known", "mystery-1", t0.Add(2*time.Hour), 1000, 500, func(e *event.Event) {
			traced(e)
			e.CostNano = 7
		}),
	}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Reprice(ctx, acmeCatalogue(), postgres.RepriceFilter{Start: t0, End: t0.Add(48 * time.Hour)}, false); err != nil {
		t.Fatal(err)
	}
	var cost, sum int64
	if err := db.Pool.QueryRow(ctx, `SELECT r.cost_nano, (SELECT sum(cost_nano) FROM events WHERE project_id = $1)
FROM runs r WHERE project_id = $1 AND trace_id = 'run1'`, p).Scan(&cost, &sum); err != nil {
		t.Fatal(err)
	}
	if cost != sum || cost <= 7 {
		t.Fatalf("run cost %d after re-pricing, events sum to %d", cost, sum)
	}
}
