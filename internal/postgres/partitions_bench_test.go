package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BenchmarkIngestAcrossMonth is BenchmarkIngestDay's traced write with
// the calls' timestamps spread over the 24 hours either side of a month
// boundary, where every call of a batch probes the neighbouring month and
// takes its replay lock (partitions.go): the worst case of the ingest's
// cost of idempotency across partitions, beside the same calls on an
// ordinary day (docs/scale.md has the figures):
//
//	go test -run '^$' -bench BenchmarkIngestAcrossMonth -benchtime 1x ./internal/postgres/
func BenchmarkIngestAcrossMonth(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	day := benchdata.Generate(benchdata.Default, pricing.Builtin(), "", time.Now().UTC(), benchdata.Default.Days-1)
	calls := day.Events[:50_000]
	next := time.Date(time.Now().Year(), time.Now().Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
	mid := time.Date(time.Now().Year(), time.Now().Month(), 15, 0, 0, 0, 0, time.UTC)
	shifted := func(at time.Time) []event.Event {
		out := make([]event.Event, len(calls))
		for i, e := range calls {
			e.Timestamp = at.Add(-24 * time.Hour).Add(time.Duration(i) * 48 * time.Hour / time.Duration(len(calls)))
			out[i] = e
		}
		return out
	}
	write := func(evs []event.Event) error {
		_, err := db.Write(ctx, evs, nil)
		return err
	}
	for range b.N {
		ordinary := rate(b, shifted(mid), newProject(b, db), write)
		boundary := rate(b, shifted(next), newProject(b, db), write)
		fmt.Printf("Write mid-month %.0f calls/s, across a month boundary %.0f calls/s (%.2f)\n", ordinary, boundary, boundary/ordinary)
		b.ReportMetric(boundary/ordinary, "boundary/ordinary")
	}
}
