package ratelimit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/ratelimit/logtest"
	"github.com/llmcost/llmcost/internal/ratelimit/redistest"
)

// The rolling log in Redis holds across two instances and lives as long
// as its own window (two of them), not the request limiter's two minutes.
func TestRedisEventLogIsSharedAndOutlivesItsWindow(t *testing.T) {
	url := redistest.Start(t)
	r, err := ratelimit.NewRedis(url, time.Minute) // the request limit's window
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	logtest.Check(t, r)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	admin := redis.NewClient(opt)
	defer admin.Close()
	ttl, err := admin.PTTL(context.Background(), "llmcost:ratelog:straddle").Result()
	if err != nil || ttl <= time.Hour || ttl > 2*time.Hour {
		t.Fatalf("log key expires in %s (%v), want over one hour and at most two", ttl, err)
	}
	if n, err := admin.ZCard(context.Background(), "llmcost:ratelog:straddle").Result(); err != nil || n != 3 {
		t.Fatalf("log holds %d events (%v), want the 3 of the last hour", n, err)
	}
}

// A store that does not answer falls back to the process's own count: the
// limit still holds per instance, and the error is reported.
func TestSharedSlidingFallsBackToTheProcessCount(t *testing.T) {
	r, err := ratelimit.NewRedis("redis://127.0.0.1:1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	l := ratelimit.NewSharedSliding(2, time.Hour, r)
	for i := range 3 {
		ok, _, err := l.Allow(context.Background(), "k")
		if err == nil {
			t.Fatalf("event %d: no error from an unreachable store", i+1)
		}
		if ok != (i < 2) {
			t.Fatalf("event %d: ok=%v, want the in-process limit of 2", i+1, ok)
		}
	}
	mem := ratelimit.NewSharedSliding(1, time.Hour, nil)
	mem.Now = func() time.Time { return logtest.Start }
	if ok, _, err := mem.Allow(context.Background(), "k"); !ok || err != nil {
		t.Fatalf("in memory, first: %v %v", ok, err)
	}
	if ok, retry, _ := mem.Allow(context.Background(), "k"); ok || retry != time.Hour {
		t.Fatalf("in memory, second: %v %s", ok, retry)
	}
}

// BenchmarkRedisMailLog is the cost of counting a password-reset request
// in the Redis rolling log (one EVALSHA; five requests per address, two of
// them refused): go test -run '^$' -bench RedisMailLog -benchtime 5000x ./internal/ratelimit/
func BenchmarkRedisMailLog(b *testing.B) {
	r, err := ratelimit.NewRedis(redistest.Start(b), time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	l := ratelimit.NewSharedSliding(3, time.Hour, r)
	for i := 0; b.Loop(); i++ {
		if _, _, err := l.Allow(context.Background(), "reset:"+strconv.Itoa(i/5)); err != nil {
			b.Fatal(err)
		}
	}
}
