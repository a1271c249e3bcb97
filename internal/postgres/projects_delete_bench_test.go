package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/timings"
)

// BenchmarkProjectDelete fills two projects with the same calls of the
// benchmark dataset's last days (merged: rollups and runs), then deletes
// one the old way (its row, every table by cascade, in one transaction)
// and the other through DeleteProject (timed: the API's answer) and
// PurgeProject (timed: the job), while a third project's 1,000-call
// batches are written back to back beside each deletion. It prints how
// long each took, the slowest of those batches during the old delete, and,
// for the new one, the batches' p50/p95/p99 during the answer and the
// purge against a baseline of the same batches written just before it: the
// issue's check is an answer under a second and a p95 within 1.5 times
// the baseline's. The load average is printed at the start and the end.
//
//	go test -run '^$' -bench BenchmarkProjectDelete -benchtime 1x -timeout 30m ./internal/postgres/
//
// Knobs:
//   - LLMCOST_BENCH_DELETE_DAYS: how many of the dataset's days (the last
//     ones, up to its 90) each project holds (default 2);
//   - LLMCOST_BENCH_DELETE_ALL=1: every call of each day (about 111,000)
//     instead of the first 100,000, so 90 days are the whole dataset,
//     10 M calls; days are generated, written and dropped one at a time;
//   - LLMCOST_BENCH_DELETE_OLD=0: no old-way project (only one large
//     project is loaded, and nothing is deleted the old way);
//   - LLMCOST_BENCH_DELETE_BASELINE: the baseline's batches (default 200;
//     it also stops after 30 s).
//
// The 10 M-call run:
//
//	LLMCOST_BENCH_DELETE_DAYS=90 LLMCOST_BENCH_DELETE_ALL=1 LLMCOST_BENCH_DELETE_OLD=0 go test -run '^$' -bench BenchmarkProjectDelete -benchtime 1x -timeout 120m ./internal/postgres/
func BenchmarkProjectDelete(b *testing.B) {
	ctx := context.Background()
	fmt.Printf("load average at the start: %s\n", benchdata.LoadAverage())
	db := openDB(b)
	days := 2
	if v, err := strconv.Atoi(os.Getenv("LLMCOST_BENCH_DELETE_DAYS")); err == nil && v > 0 {
		days = min(v, benchdata.Default.Days)
	}
	all := os.Getenv("LLMCOST_BENCH_DELETE_ALL") == "1"
	withOld := os.Getenv("LLMCOST_BENCH_DELETE_OLD") != "0"
	baseline := 200
	if v, err := strconv.Atoi(os.Getenv("LLMCOST_BENCH_DELETE_BASELINE")); err == nil && v > 0 {
		baseline = v
	}
	var old string
	if withOld {
		old = newProject(b, db)
	}
	bg, other := newProject(b, db), newProject(b, db)
	loaded := []string{bg}
	if withOld {
		loaded = []string{old, bg}
	}
	// Day by day: a day's calls are written into every loaded project and
	// merged, then dropped; only the last day's first 100,000 calls are
	// kept, for the other project's batches.
	anchor, t0, calls := time.Now().UTC(), time.Now(), 0
	var sample []event.Event
	for d := benchdata.Default.Days - days; d < benchdata.Default.Days; d++ {
		day := benchdata.Generate(benchdata.Default, pricing.Builtin(), "", anchor, d).Events
		sample = day[:100_000]
		if !all {
			day = sample
		}
		calls += len(day)
		for _, p := range loaded {
			rate(b, day, p, func(evs []event.Event) error {
				_, err := db.Write(ctx, evs, nil)
				return err
			})
			if _, err := db.MergeRollups(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := db.MergeRuns(ctx, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	sample = slices.Clone(sample) // not the last day's whole array
	fmt.Printf("loaded %d calls over %d days into %d project(s), merged, in %s\n", calls, days, len(loaded),
		time.Since(t0).Round(time.Second))
	db.EnqueuePurge = func(context.Context, pgx.Tx, string) error { return nil }
	for range b.N {
		if withOld {
			lat := beside(b, db, other, sample, func() {
				t0 := time.Now()
				if _, err := db.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, old); err != nil {
					b.Fatal(err)
				}
				fmt.Printf("old delete (one cascading statement): %s\n", time.Since(t0).Round(time.Millisecond))
			})
			fmt.Printf("  slowest batch of another project meanwhile: %s\n", slices.Max(lat).Round(time.Millisecond))
		}
		before := ingestBatches(b, db, other, sample, func(n int, since time.Duration) bool {
			return n >= baseline || since >= 30*time.Second
		})
		var answer, purge time.Duration
		var res postgres.PurgeResult
		during := beside(b, db, other, sample, func() {
			t0 := time.Now()
			if err := db.DeleteProject(ctx, bg, time.Now()); err != nil {
				b.Fatal(err)
			}
			answer = time.Since(t0)
			t0 = time.Now()
			var err error
			res, err = db.PurgeProject(ctx, bg, postgres.PurgeOptions{})
			if err != nil || !res.Done {
				b.Fatal(res, err)
			}
			purge = time.Since(t0)
		})
		fmt.Printf("new delete, the answer: %s (target under 1 s: %s)\n", answer.Round(time.Millisecond), verdict(answer < time.Second))
		fmt.Printf("new delete, the purge: %s (%d rows in %d chunks, %.0f rows/s)\n", purge.Round(time.Millisecond),
			res.Rows, res.Chunks, float64(res.Rows)/purge.Seconds())
		p95, q95 := percentile(before, 95), percentile(during, 95)
		fmt.Printf("another project's 1,000-call batches:\n")
		fmt.Printf("  baseline, just before the delete: %s\n", latencies(before))
		fmt.Printf("  during the answer and the purge:  %s\n", latencies(during))
		fmt.Printf("  p95 during / baseline: %.2f (target at most 1.5: %s)\n", float64(q95)/float64(p95),
			verdict(float64(q95) <= 1.5*float64(p95)))
	}
	fmt.Printf("load average at the end: %s\n", benchdata.LoadAverage())
}

// beside runs del while writing 1,000-call batches of calls into project,
// one after another, and answers each batch's time.
func beside(b *testing.B, db *postgres.DB, project string, calls []event.Event, del func()) []time.Duration {
	stop := make(chan struct{})
	var lat []time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		lat = ingestBatches(b, db, project, calls, func(int, time.Duration) bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		})
	})
	del()
	close(stop)
	wg.Wait()
	return lat
}

// ingestBatches writes 1,000-call batches of calls (a multiple of 1,000,
// cycled, each call under a new id) into project, one after another, until
// done says so (asked before each batch with the batches written and the
// time since the first), and answers each batch's time.
func ingestBatches(b *testing.B, db *postgres.DB, project string, calls []event.Event,
	done func(n int, since time.Duration) bool) []time.Duration {
	var lat []time.Duration
	start := time.Now()
	for i := 0; !done(len(lat), time.Since(start)); i = (i + 1000) % len(calls) {
		batch := make([]event.Event, 1000)
		copy(batch, calls[i:i+1000])
		for j := range batch {
			batch[j].ProjectID = project
			batch[j].EventID = fmt.Sprintf("%s-%d", batch[j].EventID, time.Now().UnixNano())
		}
		t0 := time.Now()
		if _, err := db.Write(context.Background(), batch, nil); err != nil {
			b.Error(err)
			break
		}
		lat = append(lat, time.Since(t0))
	}
	return lat
}

// percentile is the p-th percentile of d (nearest rank), 0 for none.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return timings.Percentile(slices.Sorted(slices.Values(d)), p)
}

// latencies is "n batches: p50 … p95 … p99 …" of d.
func latencies(d []time.Duration) string {
	ms := func(p int) float64 { return float64(percentile(d, p).Microseconds()) / 1000 }
	return fmt.Sprintf("%4d batches: p50 %6.1f ms  p95 %6.1f ms  p99 %6.1f ms", len(d), ms(50), ms(95), ms(99))
}

// verdict is ✔ or ✘.
func verdict(ok bool) string {
	if ok {
		return "✔"
	}
	return "✘"
}
