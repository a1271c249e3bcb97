package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// Two instances on one database; the first caches budget states. Its own
// batches show at once (from the counter value the batch returned, which
// also counts the other instance's earlier batches); the other's show once
// the cached rows are read again, in the background or, past staleAfter,
// before answering; a budget change on this instance empties the cache.
func TestBudgetCacheAnswersFromMemoryAndStaysExactForItsOwnWrites(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, url, 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		return db
	}
	a, b := open(), open()
	if _, err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a.CacheBudgets()
	var mu sync.Mutex
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a.SetBudgetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	p := newProject(t, a)
	month := postgres.MonthStart(time.Now())
	priced := func(id string, nano int64) []event.Event {
		e := call(p, id, 10)
		e.CostNano = nano
		return []event.Event{e}
	}
	state := func(want int64, what string) postgres.BudgetRead {
		t.Helper()
		r, err := a.BudgetState(ctx, p, month)
		if err != nil {
			t.Fatal(err)
		}
		if r.SpendNano != want {
			t.Fatalf("%s: spend %d, want %d", what, r.SpendNano, want)
		}
		return r
	}

	first := state(0, "first poll")
	if !first.AsOf.Equal(now) {
		t.Fatalf("as of %v, want the read's time %v", first.AsOf, now)
	}
	if _, err := b.Write(ctx, priced("b1", 10), nil); err != nil {
		t.Fatal(err)
	}
	state(0, "another instance's batch, within refreshAfter")
	if _, err := a.Write(ctx, priced("a1", 5), nil); err != nil {
		t.Fatal(err)
	}
	state(15, "own batch (its counter value counts the other's too)")

	if _, err := b.Write(ctx, priced("b2", 7), nil); err != nil {
		t.Fatal(err)
	}
	advance(3 * time.Second) // past staleAfter: read before answering
	if r := state(22, "past staleAfter"); !r.AsOf.Equal(now) {
		t.Fatalf("as of %v after a read at %v", r.AsOf, now)
	}

	// Past refreshAfter: answered from memory, read again behind.
	if _, err := b.Write(ctx, priced("b3", 1), nil); err != nil {
		t.Fatal(err)
	}
	advance(300 * time.Millisecond)
	state(22, "past refreshAfter: the cached answer")
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := a.BudgetState(ctx, p, month)
		if err != nil {
			t.Fatal(err)
		}
		if r.SpendNano == 23 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background read never brought the other instance's batch: %d", r.SpendNano)
		}
		time.Sleep(10 * time.Millisecond)
	}

	if r := state(23, "before the budget"); r.Budget != nil {
		t.Fatalf("a budget before one was set: %+v", r.Budget)
	}
	if err := a.PutBudget(ctx, p, postgres.Budget{Enabled: true, Mode: "warn", BudgetNano: 100, Thresholds: []int32{50}}); err != nil {
		t.Fatal(err)
	}
	if r := state(23, "after the budget"); r.Budget == nil || r.Budget.BudgetNano != 100 {
		t.Fatalf("the budget set on this instance is not shown at once: %+v", r.Budget)
	}
}
