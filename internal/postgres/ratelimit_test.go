package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/ratelimit/logtest"
)

// 30 concurrent requests against a limit of 20, through two limiters (two
// instances) on one database: exactly 20 pass.
func TestSharedRateLimitHoldsAcrossInstances(t *testing.T) {
	db := openDB(t)
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	a, b := ratelimit.NewShared(20, time.Minute, db), ratelimit.NewShared(20, time.Minute, db)
	a.Now, b.Now = func() time.Time { return now }, func() time.Time { return now }
	var passed atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.Allow(context.Background(), "key:k")
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if passed.Load() != 20 {
		t.Fatalf("%d passed, want 20", passed.Load())
	}
	d, _ := a.Allow(context.Background(), "key:k")
	if d.Allowed || d.Remaining != 0 || d.Reset != 30*time.Second {
		t.Fatalf("the 31st: %+v", d)
	}
	if d, _ := a.Allow(context.Background(), "key:other"); !d.Allowed || d.Remaining != 19 {
		t.Fatalf("another key: %+v", d)
	}
	now = now.Add(30 * time.Second) // the next window
	if d, _ := b.Allow(context.Background(), "key:k"); !d.Allowed || d.Remaining != 19 {
		t.Fatalf("next window: %+v", d)
	}

	// The sweep deletes the finished window and keeps the current one.
	s, err := db.Sweep(context.Background(), now, now.Add(-time.Minute))
	if err != nil || s.RateLimitWindows != 0 {
		t.Fatalf("sweep before the window ended: %+v %v", s, err)
	}
	s, err = db.Sweep(context.Background(), now, now.Add(-time.Second))
	if err != nil || s.RateLimitWindows != 2 {
		t.Fatalf("sweep: %+v %v, want the first window's 2 rows", s, err)
	}
	if d, _ := b.Allow(context.Background(), "key:k"); !d.Allowed || d.Remaining != 18 {
		t.Fatalf("current window lost by the sweep: %+v", d)
	}
}

// The sweep deletes a session past its refresh expiry and keeps a live one.
func TestSweepDeletesExpiredSessions(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	newProject(t, db) // a live session, expiring in an hour
	now := time.Now()
	_, _, err := db.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Sweep(ctx, now, now)
	if err != nil || s.Sessions != 1 {
		t.Fatalf("sweep: %+v %v, want the one expired session", s, err)
	}
	if s, _ = db.Sweep(ctx, now, now); s.Sessions != 0 {
		t.Fatalf("second sweep deleted %d sessions", s.Sessions)
	}
}

// The rolling log (password-reset and verification limits) holds across
// two instances on one database, and the sweep keeps an hour-long log
// until it has expired, not for the request limit's minute.
func TestEventLogIsSharedAndSweptByItsOwnWindow(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	logtest.Check(t, db)
	last := logtest.Start.Add(time.Hour) // the last event Check counted, on "straddle"
	// The sweep job passes the request limit's window (a minute): a minute
	// after the last event nothing of the hour's logs goes.
	at := last.Add(time.Minute)
	if s, err := db.Sweep(ctx, at, at.Add(-time.Minute)); err != nil || s.RateLimitLogs != 0 {
		t.Fatalf("sweep a minute after: %+v %v, want no log deleted", s, err)
	}
	// Two hours after its last event "straddle" is still kept; "burst" and
	// "other", whose last events were earlier, are gone.
	at = last.Add(2 * time.Hour)
	if s, err := db.Sweep(ctx, at, at.Add(-time.Minute)); err != nil || s.RateLimitLogs != 2 {
		t.Fatalf("sweep two hours after: %+v %v, want the 2 older logs", s, err)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT cardinality(times) FROM rate_limit_logs WHERE key = 'straddle'`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("log holds %d events (%v), want the 3 of the last hour", n, err)
	}
	at = at.Add(time.Second)
	if s, err := db.Sweep(ctx, at, at.Add(-time.Minute)); err != nil || s.RateLimitLogs != 1 {
		t.Fatalf("sweep after expiry: %+v %v, want the last log", s, err)
	}
}

// countingLeaser counts the round trips of a Leaser.
type countingLeaser struct {
	*postgres.DB
	leases atomic.Int32
}

func (c *countingLeaser) LeaseRequests(ctx context.Context, key string, start time.Time, limit, n int) (int, int, error) {
	c.leases.Add(1)
	return c.DB.LeaseRequests(ctx, key, start, limit, n)
}

// Far from its limit, a key costs a round trip per share of its window,
// not per request; two instances together never admit past the limit, and
// what they leave unused is at most a 256th of the window each.
func TestLeasedRateLimitAdmitsFromMemoryAndNeverPastTheLimit(t *testing.T) {
	db := openDB(t)
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	clock := func() time.Time { return now }

	c := &countingLeaser{DB: db}
	big := ratelimit.NewShared(1_000_000, time.Minute, c)
	big.Now = clock
	for i := range 2000 {
		d, err := big.Allow(context.Background(), "key:big")
		if err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v %v", i, d, err)
		}
		if i == 1999 && d.Remaining != 1_000_000-2000 {
			t.Fatalf("remaining %d after 2000 requests, want %d", d.Remaining, 1_000_000-2000)
		}
	}
	if n := c.leases.Load(); n > 20 {
		t.Fatalf("%d round trips for 2000 requests, want a share of 256 per round trip", n)
	}

	const limit = 10_000
	a, b := ratelimit.NewShared(limit, time.Minute, db), ratelimit.NewShared(limit, time.Minute, db)
	a.Now, b.Now = clock, clock
	var passed atomic.Int32
	var wg sync.WaitGroup
	for i := range 16_000 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Go(func() {
			d, err := l.Allow(context.Background(), "key:shared")
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				passed.Add(1)
			}
		})
	}
	wg.Wait()
	if p := passed.Load(); p > limit || p < limit-2*(limit/256+1) {
		t.Fatalf("%d admitted, want at most %d and at least %d", p, limit, limit-2*(limit/256+1))
	}
	var count int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count FROM rate_limit_windows WHERE key = 'key:shared'`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count > limit {
		t.Fatalf("the shared window counts %d, past the limit %d", count, limit)
	}
	// Full: refused from memory, with nothing left.
	before := c.leases.Load()
	if d, _ := a.Allow(context.Background(), "key:shared"); d.Allowed && passed.Load() == limit {
		t.Fatalf("admitted past a full window: %+v", d)
	}
	if c.leases.Load() != before {
		t.Fatal("a refusal of a full window went to the store")
	}
}
