package ratelimit

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/ratelimit/redistest"
	"github.com/redis/go-redis/v9"
)

// Two limiters (two instances) on one Redis: 30 concurrent requests
// against a limit of 20, exactly 20 pass; refused ones are not counted.
func TestRedisCounterIsShared(t *testing.T) {
	url := redistest.Start(t)
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	var limiters [2]*Shared
	for i := range limiters {
		r, err := NewRedis(url, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Close)
		limiters[i] = NewShared(20, time.Minute, r)
		limiters[i].Now = func() time.Time { return now }
	}
	var passed atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := limiters[i%2].Allow(context.Background(), "key:k")
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
	if d, _ := limiters[0].Allow(context.Background(), "key:k"); d.Allowed || d.Remaining != 0 || d.Reset != 30*time.Second {
		t.Fatalf("31st: %+v", d)
	}
	now = now.Add(30 * time.Second)
	if d, _ := limiters[1].Allow(context.Background(), "key:k"); !d.Allowed || d.Remaining != 19 {
		t.Fatalf("next window: %+v", d)
	}
}

func TestRedisURLAndErrors(t *testing.T) {
	for _, bad := range []string{"http://x", "redis://", "redis://h/x", "redis://h/-1", "redis://h?nope=1",
		"redis://:s3cret@h/x", "redis://:s3cret@h:port"} {
		_, err := NewRedis(bad, time.Minute)
		if err == nil || ValidateRedisURL(bad) == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error repeats the password: %v", bad, err)
		}
	}
	for _, good := range []string{"redis://h", "rediss://u:p@h:6380/3?dial_timeout=1s&max_retries=0"} {
		if err := ValidateRedisURL(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for name, url := range map[string]string{
		"unreachable":    "redis://127.0.0.1:1",
		"wrong password": strings.Replace(redistest.Start(t), redistest.Password, "nope", 1),
	} {
		r, err := NewRedis(url, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		l := NewShared(5, time.Minute, r)
		if d, err := l.Allow(context.Background(), "k"); err == nil || !d.Allowed {
			t.Errorf("%s: %+v %v, want an error and an allowing decision", name, d, err)
		}
		r.Close()
	}
}

// A server that drops its connections (restart, idle timeout) costs no
// count: the client notices on a fresh connection.
func TestRedisReconnects(t *testing.T) {
	url := redistest.Start(t)
	r, err := NewRedis(url, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	l := NewShared(5, time.Minute, r)
	if d, err := l.Allow(context.Background(), "k"); err != nil || d.Remaining != 4 {
		t.Fatalf("first: %+v %v", d, err)
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	admin := redis.NewClient(opt)
	defer admin.Close()
	if n, err := admin.ClientKillByFilter(context.Background(), "TYPE", "normal", "SKIPME", "yes").Result(); err != nil || n < 1 {
		t.Fatalf("CLIENT KILL: %d %v", n, err)
	}
	if d, err := l.Allow(context.Background(), "k"); err != nil || d.Remaining != 3 {
		t.Fatalf("after the server closed the connection: %+v %v", d, err)
	}
}

// BenchmarkRedisCount is the per-request cost of counting in Redis (one
// EVALSHA): go test -run '^$' -bench RedisCount -benchtime 5000x ./internal/ratelimit/
func BenchmarkRedisCount(b *testing.B) {
	r, err := NewRedis(redistest.Start(b), time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	l := NewShared(1<<30, time.Minute, r)
	for i := 0; b.Loop(); i++ {
		if _, err := l.Allow(context.Background(), "key:"+strconv.Itoa(i%100)); err != nil {
			b.Fatal(err)
		}
	}
}
