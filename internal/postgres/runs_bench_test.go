package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// benchRuns makes runs first… first+n−1 of total, of 1–40 calls over the 90 days before now (in time order): 50
// agents, 30 workflows of 5 steps, 20 tools (one call in four a tool
// call), spans nested up to depth 4, a retried identical call in one run
// of eight; outcomes for four runs in five.
func benchRuns(rng *rand.Rand, project string, first, n, total int, now time.Time) ([]event.Event, [][3]any) {
	var calls []event.Event
	var outcomes [][3]any
	for i := first; i < first+n; i++ {
		trace := fmt.Sprintf("run-%07d", i)
		wf := rng.IntN(30)
		agent := fmt.Sprintf("agent-%02d", rng.IntN(50))
		// Run i starts in the i-th of total equal slots of the 90 days: the
		// trace ids, in whose order RebuildRuns writes the run tables, are
		// in time order, as the run merger writes them while runs arrive.
		slot := int64(90*24*time.Hour) / int64(total)
		t0 := now.Add(-90*24*time.Hour + time.Duration(int64(i)*slot+rng.Int64N(slot)))
		k := 1 + rng.IntN(1+rng.IntN(40)) // 1–40 calls, about 10 on average
		var spans []string
		for j := range k {
			e := event.Event{ProjectID: project, EventID: fmt.Sprintf("%s-%02d", trace, j), AgentName: agent,
				Model: fmt.Sprintf("model-%02d", rng.IntN(20)), InputTokens: int64(100 + rng.IntN(4000)),
				OutputTokens: int64(rng.IntN(800)), Priced: true, Success: rng.IntN(20) > 0, Source: "batch",
				Billing: "api", Timestamp: t0.Add(time.Duration(j) * 3 * time.Second), TraceID: trace,
				SpanID: fmt.Sprintf("s%d", j), Workflow: fmt.Sprintf("workflow-%02d", wf),
				StepName: fmt.Sprintf("step-%d", rng.IntN(5)), CatalogueCostNano: -1}
			e.TotalTokens = e.InputTokens + e.OutputTokens
			e.CostNano = e.InputTokens*3000 + e.OutputTokens*15000
			if len(spans) > 0 {
				e.ParentSpanID = spans[max(0, len(spans)-1-rng.IntN(min(4, len(spans))))]
			}
			if rng.IntN(4) == 0 {
				e.ToolName = fmt.Sprintf("tool-%02d", rng.IntN(20))
			}
			if j > 0 && rng.IntN(8) == 0 { // a retry: the previous call again
				prev := calls[len(calls)-1]
				e.Model, e.InputTokens, e.StepName, e.ToolName = prev.Model, prev.InputTokens, prev.StepName, prev.ToolName
			}
			l := int64(200 + rng.IntN(5000))
			e.LatencyMS = &l
			spans = append(spans, e.SpanID)
			calls = append(calls, e)
		}
		if rng.IntN(5) > 0 {
			outcomes = append(outcomes, [3]any{project, trace, rng.IntN(3) > 0})
		}
	}
	return calls, outcomes
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkRunReports seeds LLMCOST_BENCH_RUNS runs (default 100,000, about
// 10 calls each; 1,000,000 is the 10 M-event case) with COPY and RebuildRuns, then times every run report's
// read 20 times per range and prints p50/p95, and the ingest of traced
// batches through Write (runs and rollups maintained) beside COPY. Run it
// with `make bench-runs`.
func BenchmarkRunReports(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	p := newProject(b, db)
	now := time.Now().UTC()
	n := envInt("LLMCOST_BENCH_RUNS", 100_000)
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	var ncalls, noutcomes int
	for first := 0; first < n; first += 10_000 {
		calls, outcomes := benchRuns(rng, p, first, min(10_000, n-first), n, now)
		for i := 0; i < len(calls); i += 5000 {
			if _, err := db.CopyEvents(ctx, calls[i:min(i+5000, len(calls))]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := db.Pool.CopyFrom(ctx, pgx.Identifier{"outcomes"}, []string{"project_id", "trace_id", "success"},
			pgx.CopyFromSlice(len(outcomes), func(i int) ([]any, error) { return outcomes[i][:], nil })); err != nil {
			b.Fatal(err)
		}
		ncalls, noutcomes = ncalls+len(calls), noutcomes+len(outcomes)
	}
	fmt.Printf("seeded %d runs, %d calls, %d outcomes by COPY in %s\n", n, ncalls, noutcomes, time.Since(start).Round(time.Second))
	rebuildRunsAnalyzed(ctx, b, db, p)
	for _, rng := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 90 * 24 * time.Hour} {
		q := postgres.RunQuery{ProjectID: p, Start: now.Add(-rng), End: now, Limit: 100}
		for _, r := range benchReports(db, q) {
			fmt.Printf("%-4s %-16s %s\n", fmt.Sprint(rng.Hours()/24)+"d", r.name, timeIt(b, r.read))
		}
	}
	benchIngest(b, db, now)
}

type benchReport struct {
	name string
	read func() error
}

func benchReports(db *postgres.DB, q postgres.RunQuery) []benchReport {
	ctx := context.Background()
	wf := q
	wf.Workflow, wf.HasWorkflow, wf.Limit = "workflow-07", true, 100_001
	one := q
	one.AgentName = "agent-07"
	tr := q
	tr.Limit = 50
	return []benchReport{
		{"workflows", func() error { _, err := db.WorkflowRows(ctx, q); return err }},
		{"workflows/agent", func() error { _, err := db.WorkflowRows(ctx, one); return err }},
		{"steps", func() error { _, err := db.StepRows(ctx, q); return err }},
		{"tools", func() error { _, err := db.ToolRows(ctx, q); return err }},
		{"repeated-work", func() error { _, err := db.RepeatRows(ctx, q); return err }},
		{"distribution", func() error { _, err := db.RunCosts(ctx, wf); return err }},
		{"traces", func() error { _, err := db.TraceRows(ctx, tr); return err }},
		{"trace detail", func() error { _, err := db.ReadTrace(ctx, q.ProjectID, "run-0000042"); return err }},
	}
}

// timeIt runs read 20 times and answers "p50 … p95 …".
func timeIt(b *testing.B, read func() error) string {
	var d []time.Duration
	for range 20 {
		s := time.Now()
		if err := read(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(s))
	}
	slices.Sort(d)
	return fmt.Sprintf("p50 %6.1f ms  p95 %6.1f ms", ms(d[9]), ms(d[18]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// benchIngest writes 20 batches of 1000 traced calls (100 runs of 10)
// through Write, then COPYs the same calls into another project.
func benchIngest(b *testing.B, db *postgres.DB, now time.Time) {
	ctx := context.Background()
	p, other, plain := newProject(b, db), newProject(b, db), newProject(b, db)
	calls, _ := benchRuns(rand.New(rand.NewPCG(3, 4)), p, 0, 4000, 4000, now)
	calls = calls[:20_000]
	untraced := slices.Clone(calls)
	for i := range untraced {
		untraced[i].ProjectID, untraced[i].TraceID = plain, ""
	}
	writeAll := func(evs []event.Event) time.Duration {
		start := time.Now()
		for i := 0; i < len(evs); i += 1000 {
			if _, err := db.Write(ctx, evs[i:i+1000], nil); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	bare := writeAll(untraced)
	write := writeAll(calls)
	fmt.Printf("ingest: Write without traces %.0f calls/s; with runs maintained %.0f calls/s (%.2f of it)\n",
		float64(len(calls))/bare.Seconds(), float64(len(calls))/write.Seconds(), bare.Seconds()/write.Seconds())
	for i := range calls {
		calls[i].ProjectID = other
	}
	start := time.Now()
	for i := 0; i < len(calls); i += 1000 {
		if _, err := db.CopyEvents(ctx, calls[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	cp := time.Since(start)
	fmt.Printf("ingest: Write %.0f calls/s (events, rollups, runs, run rollups), COPY %.0f calls/s, ratio %.2f\n",
		float64(len(calls))/write.Seconds(), float64(len(calls))/cp.Seconds(), cp.Seconds()/write.Seconds())
}

// rebuildRunsAnalyzed builds the runs of p's copied calls, printing how
// long it took, and analyzes the database, as the merger's users would
// find it.
func rebuildRunsAnalyzed(ctx context.Context, b *testing.B, db *postgres.DB, p string) {
	b.Helper()
	start := time.Now()
	if err := db.RebuildRuns(ctx, p); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("RebuildRuns: %s\n", time.Since(start).Round(time.Second))
	if _, err := db.Pool.Exec(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
}
