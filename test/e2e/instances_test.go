package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/ratelimit/redistest"
)

// Two processes on one database behind a (round-robin) load balancer: the
// rate limit, counted in PostgreSQL, holds for the deployment: the 101st
// request in a minute across both is 429, and so is the 4th password-reset
// request for one address in an hour; an event sent to both is stored
// once.
func TestTwoInstancesShareTheRateLimitAndDeduplicate(t *testing.T) {
	twoInstances(t, map[string]string{"LLMCOST_DATABASE_URL": pgtest.NewDatabase(t), "LLMCOST_RATE_LIMIT": "100"})
}

// The same with the counts in Redis (LLMCOST_REDIS_URL).
func TestTwoInstancesShareTheRateLimitInRedis(t *testing.T) {
	twoInstances(t, map[string]string{"LLMCOST_DATABASE_URL": pgtest.NewDatabase(t), "LLMCOST_RATE_LIMIT": "100",
		"LLMCOST_REDIS_URL": redistest.Start(t)})
}

func twoInstances(t *testing.T, env map[string]string) {
	a, b := start(t, env), start(t, env)
	_, _, key := a.account(t)
	// The quota is per fixed minute: start with enough of it left for all
	// the requests below to fall in one window.
	if now := time.Now(); now.Second() > 40 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}
	batch := map[string]any{"events": []any{ev("both-1", "gpt-4o", 100, 10, nil)}}
	stored, duplicate := 0.0, 0.0
	for i := range 100 {
		s := []*service{a, b}[i%2]
		r := s.call(t, "POST", "/v1/events/batch", key, batch)
		if r.Status != http.StatusOK {
			t.Fatalf("request %d via %s: %d %s", i+1, s.URL, r.Status, r.Raw)
		}
		stored += num(t, r.Body["events_stored"])
		duplicate += num(t, r.Body["events_duplicate"])
		if want := fmt.Sprint(99 - i); r.Header.Get("RateLimit-Remaining") != want {
			t.Fatalf("request %d: RateLimit-Remaining %q, want %s (the count of both instances)",
				i+1, r.Header.Get("RateLimit-Remaining"), want)
		}
	}
	if stored != 1 || duplicate != 99 {
		t.Fatalf("stored %v duplicate %v across both instances, want 1 and 99", stored, duplicate)
	}
	for _, s := range []*service{a, b} {
		r := s.call(t, "POST", "/v1/events/batch", key, batch)
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("the 101st request via %s: %d %s", s.URL, r.Status, r.Raw)
		}
	}
	for i := range 4 {
		s, want := []*service{a, b}[i%2], http.StatusNoContent
		if i == 3 {
			want = http.StatusTooManyRequests
		}
		r := s.call(t, "POST", "/v1/auth/password/reset-request", "", map[string]string{"email": "Shared@Example.com"})
		if r.Status != want {
			t.Fatalf("reset request %d via %s: %d %s, want %d (3 per address per hour across both)", i+1, s.URL, r.Status, r.Raw, want)
		}
	}
}
