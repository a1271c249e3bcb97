package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BenchmarkIngestDay writes the first 100,000 calls of the last day of the
// 10 M-event benchmark dataset (benchdata.Default: about 111,000 calls
// and 11,000 runs a day, so every batch's runs share their day rollups
// with thousands of others) through Write in 100 batches of 1,000 from 4
// goroutines, as make bench-analytics sends them over HTTP, then the same
// calls without trace ids, then by COPY into events alone, each into a
// fresh project, and prints the rates, the ratios to COPY and how long the
// rollup and run mergers take to fold the traced calls in afterwards. It isolates
// the store's share of ingest from HTTP and the pipeline:
//
//	go test -run '^$' -bench BenchmarkIngestDay -benchtime 1x ./internal/postgres/
func BenchmarkIngestDay(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	day := benchdata.Generate(benchdata.Default, pricing.Builtin(), "", time.Now().UTC(), benchdata.Default.Days-1)
	calls := day.Events[:100_000]
	for range b.N {
		traced := rate(b, calls, newProject(b, db), func(evs []event.Event) error {
			_, err := db.Write(ctx, evs, nil)
			return err
		})
		merge := time.Now()
		if _, err := db.MergeRollups(ctx); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("rollup merge after the traced write: %s\n", time.Since(merge).Round(time.Millisecond))
		merge = time.Now()
		n, err := db.MergeRuns(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Printf("run merge after the traced write: %d runs in %s\n", n, time.Since(merge).Round(time.Millisecond))
		untraced := rate(b, stripTraces(calls), newProject(b, db), func(evs []event.Event) error {
			_, err := db.Write(ctx, evs, nil)
			return err
		})
		cp := rate(b, calls, newProject(b, db), func(evs []event.Event) error {
			_, err := db.CopyEvents(ctx, evs)
			return err
		})
		fmt.Printf("Write traced %.0f calls/s (%.2f of COPY), untraced %.0f calls/s (%.2f), COPY %.0f calls/s\n",
			traced, traced/cp, untraced, untraced/cp, cp)
		b.ReportMetric(traced/cp, "traced/copy")
		b.ReportMetric(untraced/cp, "untraced/copy")
	}
}

func stripTraces(calls []event.Event) []event.Event {
	out := make([]event.Event, len(calls))
	for i, e := range calls {
		e.TraceID, e.SpanID, e.ParentSpanID = "", "", ""
		out[i] = e
	}
	return out
}

// rate writes calls (as project) with write in 1,000-call batches (the
// last one the rest) from 4 goroutines and answers calls per second.
func rate(b *testing.B, calls []event.Event, project string, write func([]event.Event) error) float64 {
	work := make(chan []event.Event)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range 4 {
		wg.Go(func() {
			for evs := range work {
				if err := write(evs); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		})
	}
	start := time.Now()
	for i := 0; i < len(calls); i += 1000 {
		batch := make([]event.Event, min(1000, len(calls)-i))
		copy(batch, calls[i:])
		for j := range batch {
			batch[j].ProjectID = project
		}
		work <- batch
	}
	close(work)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
	return float64(len(calls)) / time.Since(start).Seconds()
}

// BenchmarkMergeSteady times the two mergers as the server runs them under
// load: the first 100,000 calls of the benchmark dataset's last day are
// written in 1,000-call batches (not timed), and after every 16 batches
// (about a second of ingest at make bench-analytics' rate) one merge
// folds them in (timed), then one run merge refreshes their runs (timed
// apart). It prints both mergers' rates in calls per second, their share
// of the machine being the ingest's loss:
//
//	go test -run '^$' -bench BenchmarkMergeSteady -benchtime 1x ./internal/postgres/
func BenchmarkMergeSteady(b *testing.B) { mergeSteady(b, false) }

// BenchmarkMergeSteadyTagged is BenchmarkMergeSteady with the project
// declaring the calls' team tag (benchdata.TagKey): the merger's cost of
// the tag rollups (docs/tags.md).
func BenchmarkMergeSteadyTagged(b *testing.B) { mergeSteady(b, true) }

func mergeSteady(b *testing.B, tagged bool) {
	ctx := context.Background()
	db := openDB(b)
	day := benchdata.Generate(benchdata.Default, pricing.Builtin(), "", time.Now().UTC(), benchdata.Default.Days-1)
	calls := day.Events[:100_000]
	const every = 16
	for range b.N {
		project := newProject(b, db)
		if tagged {
			if err := db.PutTags(ctx, project, []string{benchdata.TagKey}); err != nil {
				b.Fatal(err)
			}
		}
		var merging, running time.Duration
		var merges, rows int64
		var refreshed int
		for i := 0; i < len(calls); i += 1000 {
			batch := make([]event.Event, 1000)
			copy(batch, calls[i:i+1000])
			for j := range batch {
				batch[j].ProjectID = project
			}
			if _, err := db.Write(ctx, batch, nil); err != nil {
				b.Fatal(err)
			}
			if (i/1000+1)%every != 0 && i+1000 < len(calls) {
				continue
			}
			start := time.Now()
			res, err := db.MergeRollups(ctx)
			if err != nil {
				b.Fatal(err)
			}
			merging += time.Since(start)
			merges++
			rows += res.Rows
			start = time.Now()
			n, err := db.MergeRuns(ctx, 0)
			if err != nil {
				b.Fatal(err)
			}
			running += time.Since(start)
			refreshed += n
		}
		fmt.Printf("merge every %d batches: %d merges, %d rollup rows upserted, %s in all, %.0f calls/s\n",
			every, merges, rows, merging.Round(time.Millisecond), float64(len(calls))/merging.Seconds())
		fmt.Printf("run merge every %d batches: %d runs refreshed, %s in all, %.0f calls/s\n",
			every, refreshed, running.Round(time.Millisecond), float64(len(calls))/running.Seconds())
		b.ReportMetric(float64(len(calls))/merging.Seconds(), "calls/s")
		b.ReportMetric(float64(len(calls))/running.Seconds(), "run_calls/s")
	}
}
