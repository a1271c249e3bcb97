package alerts_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/timings"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// migratedDB is a new database with every migration applied, closed when
// the test ends.
func migratedDB(tb testing.TB) *postgres.DB {
	tb.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(tb), 8)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return db
}

func project(b testing.TB, db *postgres.DB) string {
	b.Helper()
	_, p, err := db.Register(context.Background(), postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	return p.ID
}

// batch is 100 calls of 5 agents in 10 runs with tools, a workflow and a
// model outside some allow-lists: every judging path runs.
func batch(project string, n int, freshRuns bool) []event.Event {
	out := make([]event.Event, 100)
	now := time.Now().UTC()
	for i := range out {
		out[i] = event.Event{ProjectID: project, EventID: fmt.Sprintf("e%d-%d", n, i), AgentName: fmt.Sprintf("agent-%d", i%5),
			Model: []string{"gpt-4o-mini", "gpt-4o"}[i%2], InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100,
			CostNano: 250_000, Priced: true, Success: true, Source: "batch", Billing: "api", Timestamp: now,
			TraceID: traceID(n, i, freshRuns), Workflow: "wf", ToolName: []string{"", "search", "write_file"}[i%3]}
	}
	return out
}

// traceID: new runs in every batch (each batch finds new per-run breaches
// to alert), or the same ten runs (breaches repeat: alerted once an hour).
func traceID(n, i int, fresh bool) string {
	if fresh {
		return fmt.Sprintf("t%d-%d", n, i/10)
	}
	return fmt.Sprintf("t-%d", i/10)
}

// BenchmarkIngestJudging writes the same 100-call batches into two
// projects of one database, alternately: one with no hook (the ingest
// path before guardrails), one judged by the alerts hook against five
// guardrails with every limit, two tool tags and a budget, while the run
// merger and the alert drain run as in the service. It prints the
// overhead of judging (docs/performance.md).
func BenchmarkIngestJudging(b *testing.B) {
	for _, fresh := range []bool{true, false} {
		name := "repeated-breaches"
		if fresh {
			name = "new-breaches-every-batch"
		}
		b.Run(name, func(b *testing.B) { benchJudging(b, fresh, name) })
	}
}

func benchJudging(b *testing.B, fresh bool, name string) {
	ctx := context.Background()
	db := migratedDB(b)
	plain, guarded := project(b, db), project(b, db)
	one, limitCost := int64(3), int64(1_000_000)
	for i := range 5 {
		g := guardrail.Guardrail{AgentName: fmt.Sprintf("agent-%d", i), AllowedTools: []string{"search"}, ReadOnly: true,
			AllowedModels: []string{"gpt-4o-mini"}, MaxToolCallsPerRun: &one, MaxCostPerRunNano: &limitCost, Enabled: true}
		if _, _, err := db.PutGuardrail(ctx, guarded, g); err != nil {
			b.Fatal(err)
		}
	}
	for _, t := range []postgres.ToolTag{{ToolName: "search", Access: guardrail.Read}, {ToolName: "write_file", Access: guardrail.Write}} {
		if err := db.PutToolTag(ctx, guarded, t); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.PutBudget(ctx, guarded, postgres.Budget{Enabled: true, Mode: "warn", BudgetNano: 1_000_000_000_000,
		Thresholds: []int32{50, 80, 100}}); err != nil {
		b.Fatal(err)
	}
	hook := alerts.New(nil, nil)
	// As in the service, the run merger and the alert drain run beside
	// ingest; every 250 ms, more often than the default
	// rollup_merge_interval (1 s), so repeated breaches are learnt sooner.
	bg, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for tick := time.NewTicker(250 * time.Millisecond); ; {
			select {
			case <-bg.Done():
				tick.Stop()
				return
			case <-tick.C:
			}
			if _, err := db.MergeRuns(bg, time.Second); err != nil && bg.Err() == nil {
				b.Error(err)
			}
			if _, err := hook.Drain(bg, db); err != nil && bg.Err() == nil {
				b.Error(err)
			}
		}
	})
	defer func() { stop(); wg.Wait() }()
	var without, with []time.Duration
	b.ResetTimer()
	type side struct {
		p    string
		h    postgres.WriteHook
		into *[]time.Duration
	}
	for n := range b.N {
		// Which goes first alternates, as in test/e2e's
		// BenchmarkJudgingOverHTTP: the first of two writes tends to be
		// the slower one.
		order := []side{{plain, nil, &without}, {guarded, hook, &with}}
		if n%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, side := range order {
			evs := batch(side.p, n, fresh)
			t0 := time.Now()
			if _, err := db.WriteWith(ctx, side.h, evs, nil); err != nil {
				b.Fatal(err)
			}
			*side.into = append(*side.into, time.Since(t0))
		}
	}
	b.StopTimer()
	// The overhead is the median paired difference over the median plain
	// batch: the machine's drift cancels out of each pair.
	o := timings.Paired(without, with)
	o.Report(b, "judged")
	fmt.Printf("%s: ingest of a 100-call batch, median of %d: %s without guardrails, %s judged (5 guardrails, tags, budget); "+
		"median paired difference %s: %+.1f%%\n", name, len(with), o.Plain, o.Other, o.Diff, o.Percent)
}
