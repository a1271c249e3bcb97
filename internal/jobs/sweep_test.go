package jobs

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// sweepLog is a Sweeper that records when it ran and sweeps the database.
type sweepLog struct {
	db    *postgres.DB
	mu    *sync.Mutex
	times *[]time.Time
}

func (s sweepLog) Sweep(ctx context.Context, now, windowsBefore time.Time) (postgres.Swept, error) {
	s.mu.Lock()
	*s.times = append(*s.times, time.Now())
	s.mu.Unlock()
	return s.db.Sweep(ctx, now, windowsBefore)
}

// Two runners on one database: the periodic sweep runs about once per
// interval in all, and it deletes what has expired (here an expired
// mail-limit log) while keeping what has not.
func TestThePeriodicSweepRunsOnceAcrossRunners(t *testing.T) {
	url := pgtest.NewDatabase(t)
	const interval = time.Second
	var mu sync.Mutex
	var times []time.Time
	first := openDB(t, url)
	ctx := context.Background()
	if _, err := first.Pool.Exec(ctx, `INSERT INTO rate_limit_logs (key, times, expires_at) VALUES
		('expired', ARRAY[now() - interval '3 hours'], now() - interval '1 hour'),
		('live', ARRAY[now()], now() + interval '2 hours')`); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		db := first
		if i == 1 {
			db = openDB(t, url)
		}
		startRunner(t, Config{Pool: db.Pool, Mailer: &flakySender{}, Retry: fast, MailAttempts: 1,
			Sweeper: sweepLog{db: db, mu: &mu, times: &times}, SweepInterval: interval, RateWindow: time.Minute})
	}
	start := time.Now()
	var got []time.Time
	for deadline := start.Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		got = append(got[:0], times...)
		mu.Unlock()
		if len(got) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	onePerInterval(t, got, time.Since(start), interval)
	var keys []string
	rows, err := first.Pool.Query(ctx, `SELECT key FROM rate_limit_logs ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if rows.Err() != nil || len(keys) != 1 || keys[0] != "live" {
		t.Fatalf("logs after the sweeps: %v %v, want only the live one", keys, rows.Err())
	}
}
