package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Ingest comparison shape, as in test/e2e's BenchmarkIngestVsCopy: 100
// batches of 1000 events from 4 concurrent clients, then the same rows by
// COPY in 1000-row chunks.
const (
	ingestBatch   = 1000
	ingestBatches = 100
	ingestClients = 4
)

// ingestResult is the ingest comparison's outcome.
type ingestResult struct {
	// Ingest counts until the last batch is acknowledged (the reports
	// include every batch from then on); Merged until the server's merger
	// has folded the last one into the rollups (the tail is empty); Runs
	// until the run merger has refreshed the last marked run too.
	Ingest, Merged, Runs, Copy float64 // events per second
}

// measureIngest sends the default dataset's calls of the last day through
// /v1/events/batch of a fresh database on the bench server (the server's
// merger folding them into the rollups every second), waits until the
// merger has caught up, checks that every stored row equals the generated
// one (so the bulk loader's rows are ingest's rows), then copies the same
// rows into the events table of another project alone, and finally checks
// that rebuilding that project's rollups gives the rollups the merger
// built.
func measureIngest(b *testing.B, ds *dataset) ingestResult {
	ctx := context.Background()
	if err := postgres.RecreateDatabase(ctx, withDatabase(ds.server.URL(), "postgres"), ingestDatabase); err != nil {
		b.Fatal(err)
	}
	dbURL := withDatabase(ds.server.URL(), ingestDatabase)
	srv := startLLMCost(b, dbURL)
	defer srv.stop()
	projectID, key := srv.register(b)
	// The calls of the default dataset whatever this dataset's size: a
	// smaller one spreads 100,000 calls over weeks, where the merger then
	// upserts several times the rollup rows a day's calls need.
	events := ingestEvents(benchdata.Default, projectID)

	if len(events) == 0 {
		b.Fatal("the dataset is too small for a batch of the ingest comparison")
	}
	bodies := make([][]byte, 0, ingestBatches)
	for i := 0; i < len(events); i += ingestBatch {
		body, err := benchdata.BatchBody(events[i:i+ingestBatch], nil)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	db, err := postgres.OpenBulk(ctx, dbURL, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	sendAll(b, srv, key, bodies)
	var r ingestResult
	r.Ingest = float64(len(events)) / time.Since(start).Seconds()
	waitMerged(b, db, projectID)
	r.Merged = float64(len(events)) / time.Since(start).Seconds()
	waitRunsMerged(b, db, projectID)
	r.Runs = float64(len(events)) / time.Since(start).Seconds()
	checkStored(b, db, projectID, events)

	// COPY runs on a quiet server: with llmcost stopped (its mergers done),
	// nothing of the ingest run shares the cores with it.
	otherID, _ := srv.register(b)
	srv.stop()
	for i := range events {
		events[i].ProjectID = otherID
	}
	start = time.Now()
	for i := 0; i < len(events); i += ingestBatch {
		if _, err := db.CopyEvents(ctx, events[i:i+ingestBatch]); err != nil {
			b.Fatal(err)
		}
	}
	r.Copy = float64(len(events)) / time.Since(start).Seconds()
	checkRollups(b, db, projectID, otherID)
	return r
}

// ingestDatabase is the ingest comparison's own database on the bench
// server, made afresh for each run.
const ingestDatabase = "bench_ingest"

// settle drops the ingest comparison's database, vacuums and analyzes the
// dataset's and checkpoints, so the report timings that follow do not
// share the two cores with what the writes before them left behind:
// autovacuum of the freshly written tables and the writing out of their
// dirty pages. Without the VACUUM, autovacuum woke a minute after a
// sample's merges (every rollup and run table it updated crossed its
// thresholds) and ran beside the reports, longer on bigger tables: at the
// larger size of make bench-scale it covered most of the timings.
func settle(b *testing.B, ds *dataset) {
	ctx := context.Background()
	t := time.Now()
	// Not postgres.VacuumAnalyze: its REINDEX of the events' BRIN index
	// reads every call, minutes at 30 M.
	if _, err := ds.db.Pool.Exec(ctx, `VACUUM (ANALYZE)`); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("settled: VACUUM (ANALYZE) in %s\n", time.Since(t).Round(time.Second))
	conn, err := pgx.Connect(ctx, withDatabase(ds.server.URL(), "postgres"))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + pgx.Identifier{ingestDatabase}.Sanitize() + " WITH (FORCE)", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
}

// waitMerged polls until the server's merger (every second) has moved the
// watermark to the merge horizon taken when it was called (every batch,
// acknowledged by then, below it), then checks that none of the project's
// events is left in the tail. Counting the tail at every poll would cost
// time that grows with the tail, on the cores the merger is being timed on.
func waitMerged(b *testing.B, db *postgres.DB, projectID string) {
	ctx := context.Background()
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		b.Fatal(err)
	}
	waitNone(b, "merges to the horizon", func(ctx context.Context) (int64, error) {
		merged, err := db.MergedTo(ctx, horizon)
		if merged {
			return 0, err
		}
		return 1, err
	})
	if n, err := db.TailEvents(ctx, projectID); err != nil || n != 0 {
		b.Fatalf("%d events left in the tail past the watermark (%v)", n, err)
	}
}

// waitRunsMerged polls until the server's run merger has refreshed every
// run of the project that ingest marked (it leaves a run for a second after
// its last batch, so as not to refresh a run still being written).
func waitRunsMerged(b *testing.B, db *postgres.DB, projectID string) {
	waitNone(b, "runs marked", func(ctx context.Context) (int64, error) { return db.MarkedRuns(ctx, projectID) })
}

// waitNone polls count every 20 ms until it answers 0, for at most 5
// minutes.
func waitNone(b *testing.B, what string, count func(context.Context) (int64, error)) {
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		n, err := count(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d %s for 5 minutes", n, what)
		}
	}
}

// ingestEvents are the first ingestBatch×ingestBatches calls of the
// dataset's last days, timestamped relative to now (fewer, in whole
// batches, when the dataset is smaller).
func ingestEvents(spec benchdata.Spec, projectID string) []event.Event {
	var events []event.Event
	for d := spec.Days - 1; d >= 0 && len(events) < ingestBatch*ingestBatches; d-- {
		events = append(events, benchdata.Generate(spec, pricing.Builtin(), projectID, time.Now().UTC(), d).Events...)
	}
	return events[:min(len(events), ingestBatch*ingestBatches)/ingestBatch*ingestBatch]
}

// sendAll posts every batch from ingestClients clients, each resent after
// its Retry-After while the server pushes back (503), as an exporter does.
func sendAll(b *testing.B, srv *llmcost, key string, bodies [][]byte) {
	work := make(chan []byte)
	var wg sync.WaitGroup
	var st streamStats
	for range ingestClients {
		wg.Go(func() {
			for body := range work {
				if err := sendBatch(context.Background(), srv, key, body, &st); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for _, body := range bodies {
		work <- body
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	if n := st.retries.Load(); n > 0 {
		fmt.Printf("back-pressure: %d batches answered 503 and resent after %s in all\n", n, time.Duration(st.retryWait.Load()))
	}
}

// checkStored compares every stored row with the generated call, field by
// field (metadata as JSON, since jsonb reorders keys).
func checkStored(b *testing.B, db *postgres.DB, projectID string, sent []event.Event) {
	stored, _, err := db.ListEvents(context.Background(), postgres.EventFilter{ProjectID: projectID, Limit: len(sent)})
	if err != nil || len(stored) != len(sent) {
		b.Fatalf("stored %d of %d events: %v", len(stored), len(sent), err)
	}
	byID := make(map[string]event.Event, len(stored))
	for _, ev := range stored {
		byID[ev.EventID] = ev
	}
	for _, want := range sent {
		got, ok := byID[want.EventID]
		if !ok {
			b.Fatalf("event %s not stored", want.EventID)
		}
		if !sameJSON(got.Metadata, want.Metadata) {
			b.Fatalf("event %s metadata %s, generated %s", want.EventID, got.Metadata, want.Metadata)
		}
		got.Metadata, want.Metadata = nil, nil
		if !reflect.DeepEqual(got, want) {
			b.Fatalf("ingest stored another row than the bulk loader would:\n stored    %+v\n generated %+v", got, want)
		}
	}
	fmt.Printf("ingest check: all %d rows stored by /v1/events/batch equal the bulk loader's rows\n", len(sent))
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// checkRollups rebuilds the copied project's rollups as the bulk loader
// does and compares them with those the merger built from ingest's calls.
func checkRollups(b *testing.B, db *postgres.DB, ingested, copied string) {
	ctx := context.Background()
	if err := db.RebuildRollups(ctx, copied); err != nil {
		b.Fatal(err)
	}
	want, n, err := db.RollupDigest(ctx, ingested)
	if err != nil {
		b.Fatal(err)
	}
	got, m, err := db.RollupDigest(ctx, copied)
	if err != nil || got != want || n == 0 {
		b.Fatalf("rollups rebuilt after COPY (%d rows, %s) differ from those merged after ingest (%d rows, %s): %v", m, got, n, want, err)
	}
	fmt.Printf("rollup check: the %d rollup rows rebuilt after COPY equal those merged after ingest\n", n)
}
