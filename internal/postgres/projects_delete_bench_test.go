package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BenchmarkProjectDelete fills two projects with the same 200,000 calls of
// the benchmark dataset's last two days (merged: rollups and runs), then
// deletes one the old way (its row, every table by cascade, in one
// transaction) and the other through DeleteProject (timed: the API's
// answer) and PurgeProject (timed: the job), while a third project's
// 1,000-call batches are written beside each deletion: it prints how long
// each took and the slowest of those batches during it.
//
//	go test -run '^$' -bench BenchmarkProjectDelete -benchtime 1x -timeout 30m ./internal/postgres/
//
// LLMCOST_BENCH_DELETE_DAYS sets how many days of 100,000 calls each
// project holds (default 2).
func BenchmarkProjectDelete(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	days := 2
	if v, err := strconv.Atoi(os.Getenv("LLMCOST_BENCH_DELETE_DAYS")); err == nil && v > 0 {
		days = min(v, benchdata.Default.Days)
	}
	var calls []event.Event
	for d := benchdata.Default.Days - days; d < benchdata.Default.Days; d++ {
		day := benchdata.Generate(benchdata.Default, pricing.Builtin(), "", time.Now().UTC(), d)
		calls = append(calls, day.Events[:100_000]...)
	}
	old, bg, other := newProject(b, db), newProject(b, db), newProject(b, db)
	for _, p := range []string{old, bg} {
		rate(b, calls, p, func(evs []event.Event) error {
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
	db.EnqueuePurge = func(context.Context, pgx.Tx, string) error { return nil }
	for range b.N {
		slowest := beside(b, db, other, calls, func() {
			t0 := time.Now()
			if _, err := db.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, old); err != nil {
				b.Fatal(err)
			}
			fmt.Printf("old delete (one cascading statement): %s\n", time.Since(t0).Round(time.Millisecond))
		})
		fmt.Printf("  slowest batch of another project meanwhile: %s\n", slowest.Round(time.Millisecond))
		slowest = beside(b, db, other, calls, func() {
			t0 := time.Now()
			if err := db.DeleteProject(ctx, bg, time.Now()); err != nil {
				b.Fatal(err)
			}
			fmt.Printf("new delete, the answer: %s\n", time.Since(t0).Round(time.Millisecond))
			t0 = time.Now()
			res, err := db.PurgeProject(ctx, bg, postgres.PurgeOptions{})
			if err != nil || !res.Done {
				b.Fatal(res, err)
			}
			fmt.Printf("new delete, the purge: %s (%d rows in %d chunks)\n", time.Since(t0).Round(time.Millisecond),
				res.Rows, res.Chunks)
		})
		fmt.Printf("  slowest batch of another project meanwhile: %s\n", slowest.Round(time.Millisecond))
	}
}

// beside runs del while writing 1,000-call batches of calls into project,
// one after another, and answers the slowest batch's time.
func beside(b *testing.B, db *postgres.DB, project string, calls []event.Event, del func()) time.Duration {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var slowest time.Duration
	wg.Go(func() {
		for i := 0; ; i = (i + 1000) % len(calls) {
			select {
			case <-stop:
				return
			default:
			}
			batch := make([]event.Event, 1000)
			copy(batch, calls[i:i+1000])
			for j := range batch {
				batch[j].ProjectID = project
				batch[j].EventID = fmt.Sprintf("%s-%d", batch[j].EventID, time.Now().UnixNano())
			}
			t0 := time.Now()
			if _, err := db.Write(context.Background(), batch, nil); err != nil {
				b.Error(err)
				return
			}
			slowest = max(slowest, time.Since(t0))
		}
	})
	del()
	close(stop)
	wg.Wait()
	return slowest
}
