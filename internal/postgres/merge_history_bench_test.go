package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BenchmarkMergeBesideHistory times the merger under live traffic beside a
// history of months and without one, in a database each: the history is
// 24 monthly partitions of 40,000 calls each before this month (COPY,
// RebuildRollups, VACUUM: merged and summarized, as old months are). Then
// 40 rounds: four 1,000-call batches of this month's calls (not timed),
// one merge and the summary after it (timed). It prints their p50 and p95
// and the pages the BRIN indexes on tx served them per round
// (pg_statio_user_indexes, every backend's counters flushed before and
// after), and the rollup rows each merge upserted; then the run merger's
// refresh of the round's runs (timed apart: its reads of each run's calls
// are what the months of history could slow). `make bench-merge-history`.
func BenchmarkMergeBesideHistory(b *testing.B) {
	fmt.Printf("%-28s %8s %8s %20s %18s %22s %22s %16s\n", "", "p50 ms", "p95 ms", "BRIN pages a round", "summaries given up",
		"rollup rows a round", "runs p50 / p95 ms", "runs a round")
	for _, months := range []int{0, 24} {
		b.Run(fmt.Sprintf("%dmonths", months), func(b *testing.B) { mergeBesideHistory(b, months) })
	}
}

func mergeBesideHistory(b *testing.B, months int) {
	ctx := context.Background()
	cat := pricing.Builtin()
	now := time.Now().UTC()
	db := openDB(b)
	p := newProject(b, db)
	this := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	for m := 1; m <= months; m++ {
		mid := this.AddDate(0, -m, 14)
		if _, err := db.EnsureEventPartitions(ctx, mid, 0); err != nil {
			b.Fatal(err)
		}
		spec := benchdata.Spec{Seed: uint64(m), Events: 40_000, Days: 1, Agents: 50, Users: 1000, Sessions: 100, Workflows: 30}
		evs := benchdata.Generate(spec, cat, p, mid, 0).Events
		for i := 0; i < len(evs); i += 5000 {
			if _, err := db.CopyEvents(ctx, evs[i:min(i+5000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		b.Fatal(err)
	}
	if _, err := db.EnsureEventPartitions(ctx, now, 1); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		b.Fatal(err)
	}
	live := benchdata.Generate(benchdata.Spec{Seed: 99, Events: 160_000, Days: 1, Agents: 50, Users: 1000, Sessions: 400,
		Workflows: 30}, cat, p, now, 0).Events
	live = slices.DeleteFunc(live, func(e event.Event) bool { return e.Timestamp.Before(this) })
	var took, runsTook []time.Duration
	var pages, rows, refreshed int64
	missed := 0
	for i := 0; i+4000 <= len(live); i += 4000 {
		for j := i; j < i+4000; j += 1000 {
			if _, err := db.Write(ctx, live[j:j+1000], nil); err != nil {
				b.Fatal(err)
			}
		}
		before := brinPages(b, db)
		t := time.Now()
		res, err := db.MergeRollups(ctx)
		if err != nil {
			b.Fatal(err)
		}
		// As the server does: a summary a vacuum holds off waits for the next.
		if err := db.SummarizeTail(ctx, res.Span); err != nil {
			missed++
		}
		took = append(took, time.Since(t))
		pages += brinPages(b, db) - before
		rows += res.Rows
		t = time.Now()
		n, err := db.MergeRuns(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		runsTook = append(runsTook, time.Since(t))
		refreshed += int64(n)
	}
	slices.Sort(took)
	slices.Sort(runsTook)
	fmt.Printf("%-28s %8.1f %8.1f %20d %18d %22d %22s %16d\n", fmt.Sprintf("%d months of history (load %s)", months, benchdata.LoadAverage()),
		ms(took[len(took)/2]), ms(took[len(took)*95/100]), pages/int64(len(took)), missed, rows/int64(len(took)),
		fmt.Sprintf("%.1f / %.1f", ms(runsTook[len(runsTook)/2]), ms(runsTook[len(runsTook)*95/100])), refreshed/int64(len(runsTook)))
}

// brinPages is how many pages the partitions' BRIN indexes on tx have
// served in db, every idle pooled backend's counters flushed first (a
// backend reports them at most once a second, else ten seconds later).
func brinPages(b *testing.B, db *postgres.DB) int64 {
	ctx := context.Background()
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		_, err := c.Exec(ctx, `SELECT pg_stat_force_next_flush()`)
		c.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
	var n int64
	if err := db.Pool.QueryRow(ctx, `SELECT coalesce(sum(idx_blks_read + idx_blks_hit), 0)::bigint
FROM pg_statio_user_indexes WHERE indexrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'events_tx_brin'::regclass)`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}
