package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// Benchmark shape: batches of benchBatch events sent by benchClients
// concurrent clients, benchBatches batches in all.
const (
	benchBatch   = 1000
	benchBatches = 100
	benchClients = 4
)

// BenchmarkIngestVsCopy measures end-to-end ingest (HTTP, JSON decoding,
// validation, the collector pipeline, pricing, deduplicating INSERT) against
// raw COPY of the same rows into the same schema, in one run, and prints both
// rates and their ratio. Run it with `make bench`.
func BenchmarkIngestVsCopy(b *testing.B) {
	for range b.N {
		ingestRate, copyRate := benchOnce(b)
		b.ReportMetric(ingestRate, "ingest_events/s")
		b.ReportMetric(copyRate, "copy_events/s")
		b.ReportMetric(ingestRate/copyRate, "ratio")
		fmt.Printf("ingest: %.0f events/s end to end (HTTP → pipeline → PostgreSQL), %d clients, %d-event batches\n",
			ingestRate, benchClients, benchBatch)
		fmt.Printf("copy:   %.0f events/s raw COPY of the same rows into the same schema\n", copyRate)
		fmt.Printf("ratio:  %.2f of COPY\n", ingestRate/copyRate)
	}
}

func benchOnce(b *testing.B) (ingestRate, copyRate float64) {
	s := start(b, nil)
	_, projectID, key := s.account(b)
	bodies := make([][]byte, benchBatches)
	for i := range bodies {
		events := make([]map[string]any, benchBatch)
		for j := range events {
			events[j] = map[string]any{
				"event_id": fmt.Sprintf("b%04d-%04d", i, j), "agent_name": fmt.Sprintf("agent-%d", j%7),
				"model": "claude-sonnet-4-5", "input_tokens": 1200 + j, "output_tokens": 300,
				"cached_tokens": 800, "latency_ms": 900, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
				"trace_id": fmt.Sprintf("trace-%d-%d", i, j/10), "metadata": map[string]any{"user_id": "u1", "session_id": "s1"},
			}
		}
		bodies[i], _ = json.Marshal(map[string]any{"events": events})
	}

	work := make(chan []byte)
	var wg sync.WaitGroup
	var pushedBack atomic.Int64
	start := time.Now()
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for body := range work {
				// A 503 is back-pressure: resent after its Retry-After, as
				// an exporter does, so the rate is what the mergers keep up with.
				for {
					r := s.call(b, "POST", "/v1/events/batch", key, body)
					if r.Status == http.StatusServiceUnavailable {
						after, _ := strconv.Atoi(r.Header.Get("Retry-After"))
						pushedBack.Add(1)
						time.Sleep(time.Duration(max(after, 1)) * time.Second)
						continue
					}
					if r.Status != http.StatusOK {
						b.Errorf("status %d: %.200s", r.Status, r.Raw)
					}
					break
				}
			}
		}()
	}
	for _, body := range bodies {
		work <- body
	}
	close(work)
	wg.Wait()
	ingestRate = float64(benchBatch*benchBatches) / time.Since(start).Seconds()
	if n := pushedBack.Load(); n > 0 {
		fmt.Printf("back-pressure: %d batches answered 503 and resent after their Retry-After\n", n)
	}

	// The same rows, as stored, copied into a fresh project of the same schema.
	ctx := context.Background()
	db, err := postgres.Open(ctx, s.dbURL, 4)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	stored, _, err := db.ListEvents(ctx, postgres.EventFilter{ProjectID: projectID, Limit: benchBatch * benchBatches})
	if err != nil || len(stored) != benchBatch*benchBatches {
		b.Fatalf("stored %d events: %v", len(stored), err)
	}
	_, other, _ := s.account(b)
	// COPY runs once the server's mergers have nothing left of the ingest
	// to fold in, so they do not share the cores with it.
	idle(b, db, projectID)
	for i := range stored {
		stored[i].ProjectID = other
	}
	start = time.Now()
	for i := 0; i < len(stored); i += benchBatch {
		if _, err := db.CopyEvents(ctx, stored[i:i+benchBatch]); err != nil {
			b.Fatal(err)
		}
	}
	copyRate = float64(len(stored)) / time.Since(start).Seconds()
	return ingestRate, copyRate
}

// idle waits until the server's mergers have folded every call of the
// project into the rollups (the watermark at the merge horizon taken on
// entry: one row read a poll, not the tail counted) and refreshed every run
// it marked.
func idle(b *testing.B, db *postgres.DB, projectID string) {
	ctx := context.Background()
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		merged, err := db.MergedTo(ctx, horizon)
		var marked int64
		if err == nil {
			marked, err = db.MarkedRuns(ctx, projectID)
		}
		if err != nil {
			b.Fatal(err)
		}
		if merged && marked == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the mergers left the horizon unmerged (%v) and %d runs marked for 5 minutes", !merged, marked)
		}
	}
	if n, err := db.TailEvents(ctx, projectID); err != nil || n != 0 {
		b.Fatalf("%d calls left in the tail past the watermark (%v)", n, err)
	}
}
