package postgres_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/ratelimit"
)

// BenchmarkRateLimit is the per-request cost of counting a request: in
// process memory, shared through PostgreSQL one by one (one keyed upsert,
// what keys under low limits pay) and from leased shares of the window;
// and of
// counting a password-reset request in the shared rolling log (one upsert
// of a row of at most 3 times, a refusal one more read). The figures in
// docs/performance.md come from
// go test -run '^$' -bench RateLimit -benchtime 5000x ./internal/postgres/
func BenchmarkRateLimit(b *testing.B) {
	ctx := context.Background()
	b.Run("memory", func(b *testing.B) {
		l := ratelimit.New(1<<30, time.Minute)
		for i := 0; b.Loop(); i++ {
			if _, err := l.Allow(ctx, "key:"+strconv.Itoa(i%100)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("postgres", func(b *testing.B) {
		db := openDB(b)
		l := ratelimit.NewShared(1<<30, time.Minute, oneByOne{db})
		for i := 0; b.Loop(); i++ {
			if _, err := l.Allow(ctx, "key:"+strconv.Itoa(i%100)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("postgres-leased", func(b *testing.B) {
		db := openDB(b)
		l := ratelimit.NewShared(1<<30, time.Minute, db)
		for i := 0; b.Loop(); i++ {
			if _, err := l.Allow(ctx, "key:"+strconv.Itoa(i%100)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("postgres-mail-log", func(b *testing.B) {
		db := openDB(b)
		l := ratelimit.NewSharedSliding(3, time.Hour, db)
		for i := 0; b.Loop(); i++ {
			// Five requests per address: three counted, two refused.
			if _, _, err := l.Allow(ctx, "reset:"+strconv.Itoa(i/5)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// oneByOne hides the store's leases: every request is counted in it.
type oneByOne struct{ ratelimit.Counter }
