package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/semconv"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openDB(t testing.TB) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if n, err := db.Migrate(ctx); err != nil || n == 0 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	return db
}

func newProject(t testing.TB, db *postgres.DB) string {
	t.Helper()
	ctx := context.Background()
	u, p, err := db.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || u.ID == "" {
		t.Fatal(err)
	}
	return p.ID
}

func call(project, id string, input int64) event.Event {
	return event.Event{ProjectID: project, EventID: id, AgentName: "a", Model: "m", InputTokens: input,
		OutputTokens: 1, TotalTokens: input + 1, Timestamp: time.Now().UTC(), Success: true, Billing: "api", Source: "batch"}
}

func TestMigrateTwiceAppliesNothing(t *testing.T) {
	db := openDB(t)
	if n, err := db.Migrate(context.Background()); err != nil || n != 0 {
		t.Fatalf("second migrate applied %d (%v)", n, err)
	}
}

func TestWriteDeduplicatesAndFirstCopyWins(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	res, err := db.Write(ctx, []event.Event{call(p, "e1", 1), call(p, "e2", 2), call(p, "e1", 99)}, nil)
	if err != nil || res.Stored != 2 || res.Duplicate != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = db.Write(ctx, []event.Event{call(p, "e1", 1), call(p, "e2", 2), call(p, "e1", 99)}, nil)
	if err != nil || res.Stored != 0 || res.Duplicate != 3 {
		t.Fatalf("resend: %+v %v", res, err)
	}
	events, _, err := db.ListEvents(ctx, postgres.EventFilter{ProjectID: p, Limit: 10})
	if err != nil || len(events) != 2 {
		t.Fatalf("%d events %v", len(events), err)
	}
	for _, e := range events {
		if e.EventID == "e1" && e.InputTokens != 1 {
			t.Fatalf("e1 kept the later copy: %d", e.InputTokens)
		}
	}
}

func TestSameEventIDInTwoProjects(t *testing.T) {
	db := openDB(t)
	a, b := newProject(t, db), newProject(t, db)
	res, err := db.Write(context.Background(), []event.Event{call(a, "same", 1), call(b, "same", 1)}, nil)
	if err != nil || res.Stored != 2 {
		t.Fatalf("%+v %v", res, err)
	}
}

// Overlapping batches in opposite orders would deadlock without sorting.
func TestOverlappingConcurrentBatchesDoNotDeadlock(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	batch := make([]event.Event, 2000)
	for i := range batch {
		batch[i] = call(p, fmt.Sprintf("k%05d", i), 1)
	}
	reversed := slices.Clone(batch)
	slices.Reverse(reversed)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stored int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := batch
			if i%2 == 1 {
				b = reversed
			}
			res, err := db.Write(context.Background(), b, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			stored += res.Stored
			mu.Unlock()
		}()
	}
	wg.Wait()
	if stored != 2000 {
		t.Fatalf("stored %d, want 2000", stored)
	}
}

func TestOutcomesLaterReplacesEarlier(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	res, err := db.Write(ctx, nil, []semconv.Outcome{{ProjectID: p, TraceID: "t", Success: false}, {ProjectID: p, TraceID: "t", Success: true, Label: "ok"}})
	if err != nil || res.Outcomes != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	var success bool
	var label string
	if err := db.Pool.QueryRow(ctx, `SELECT success, label FROM outcomes WHERE project_id=$1 AND trace_id='t'`, p).Scan(&success, &label); err != nil || !success || label != "ok" {
		t.Fatalf("outcome %v %q %v", success, label, err)
	}
}
