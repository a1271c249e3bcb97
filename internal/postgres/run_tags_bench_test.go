package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/postgres"
)

// BenchmarkTagFilteredRunReports seeds LLMCOST_BENCH_RUNS runs (default
// 28,000, about 300,000 calls) as BenchmarkRunReports does, every call
// carrying a team tag the project declares, one of four per run (a
// quarter of the runs each), then times every run report's read unfiltered
// and narrowed to one team, 20 times per range, and prints p50/p95.
func BenchmarkTagFilteredRunReports(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	p := newProject(b, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	n := envInt("LLMCOST_BENCH_RUNS", 28_000)
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	var ncalls int
	for first := 0; first < n; first += 10_000 {
		calls, outcomes := benchRuns(rng, p, first, min(10_000, n-first), n, now)
		for i := range calls {
			var run int
			fmt.Sscanf(calls[i].TraceID, "run-%d", &run)
			calls[i].Metadata = []byte(fmt.Sprintf(`{"team":"team-%d"}`, run%4))
		}
		for i := 0; i < len(calls); i += 5000 {
			if _, err := db.CopyEvents(ctx, calls[i:min(i+5000, len(calls))]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := db.Pool.CopyFrom(ctx, pgx.Identifier{"outcomes"}, []string{"project_id", "trace_id", "success"},
			pgx.CopyFromSlice(len(outcomes), func(i int) ([]any, error) { return outcomes[i][:], nil })); err != nil {
			b.Fatal(err)
		}
		ncalls += len(calls)
	}
	fmt.Printf("seeded %d runs, %d calls by COPY in %s\n", n, ncalls, time.Since(start).Round(time.Second))
	rebuildRunsAnalyzed(ctx, b, db, p)
	for _, rng := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 90 * 24 * time.Hour} {
		q := postgres.RunQuery{ProjectID: p, Start: now.Add(-rng), End: now, Limit: 100}
		tagged := q
		tagged.Tag, tagged.TagValue = "team", "team-1"
		all, one := benchReports(db, q), benchReports(db, tagged)
		all = append(all, benchReport{"agent runs", func() error { _, err := db.ReadAgentRuns(ctx, q); return err }})
		one = append(one, benchReport{"agent runs", func() error { _, err := db.ReadAgentRuns(ctx, tagged); return err }})
		for i, r := range all {
			if r.name == "workflows/agent" || r.name == "trace detail" {
				continue // no tag filter with an agent; a trace's detail takes none
			}
			days := fmt.Sprint(rng.Hours()/24) + "d"
			fmt.Printf("%-4s %-16s all  %s\n", days, r.name, timeIt(b, r.read))
			fmt.Printf("%-4s %-16s team %s\n", days, r.name, timeIt(b, one[i].read))
		}
	}
}
