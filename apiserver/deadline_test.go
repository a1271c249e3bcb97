package apiserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/postgres"
)

// Pool exhaustion (security checklist §8, test 5): with every connection
// of the pool taken, 52 concurrent requests are answered 503 with
// Retry-After within the request timeout instead of waiting for a
// connection; once one is free, requests are served again.
func TestPoolExhaustionIsAnswered503InTime(t *testing.T) {
	e := newEnv(t)
	u := e.register("pool")
	ctx := context.Background()
	small, err := postgres.Open(ctx, e.db.Pool.Config().ConnString(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(small.Close)
	d := e.deps(e.srv.Logger)
	d.DB, d.RequestTimeout = small, 300*time.Millisecond
	h := New(d).Handler()
	var held []*pgxpool.Conn
	for range 2 {
		c, err := small.Pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range 52 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := []string{"/v1/events?limit=1", "/v1/auth/me"}[i%2]
			bearer := []string{u.Key, u.Access}[i%2]
			r := e.doAs(h, "GET", path, bearer, nil)
			mu.Lock()
			defer mu.Unlock()
			if r.Header.Get("Retry-After") == "" && r.Status == 503 {
				t.Errorf("503 without Retry-After: %s", r.Raw)
			}
			statuses[r.Status]++
		}()
	}
	wg.Wait()
	if took := time.Since(start); statuses[503] != 52 || took > 3*time.Second {
		t.Fatalf("answers %v after %s, want 52 × 503 within the 300 ms timeout (plus scheduling)", statuses, took)
	}
	for _, c := range held {
		c.Release()
	}
	e.must(e.doAs(h, "GET", "/v1/events?limit=1", u.Key, nil), 200)
}
