package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// Budget-state polling shape: benchPollers clients polling over HTTP,
// benchPolls requests each, against a project holding
// LLMCOST_BENCH_EVENTS events (default 10 M).
const (
	benchPollers = 50
	benchPolls   = 200
)

// BenchmarkBudgetStatePollers measures GET …/budget-state latency with 50
// concurrent pollers over HTTP at 10 M stored events and prints p50 and
// p99. Budget state reads the month's spend counter (one row), so the
// figure does not depend on the event count. Run it with `make bench`.
func BenchmarkBudgetStatePollers(b *testing.B) {
	events := 10_000_000
	if v := os.Getenv("LLMCOST_BENCH_EVENTS"); v != "" {
		events, _ = strconv.Atoi(v)
	}
	s := start(b, nil)
	token, project, key := s.account(b)
	seedEvents(b, s.dbURL, project, events)
	// One real batch through the ingest path moves the counter too.
	batch := map[string]any{"project_id": project, "events": []any{ev("live", "gpt-4o", 1000, 100, nil)}}
	s.call(b, "POST", "/v1/events/batch", key, batch).must(b, http.StatusOK)
	s.call(b, "PUT", "/v1/projects/"+project+"/budget", token, map[string]any{"budget": 1000}).must(b, http.StatusOK)
	path := s.URL + "/v1/projects/" + project + "/budget-state"
	for range b.N {
		// Pollers that poll every 100 ms (what a budget-aware proxy does),
		// then pollers that never pause (a throughput test: on a small
		// machine their latency is the queue of the others' requests).
		for _, every := range []time.Duration{100 * time.Millisecond, 0} {
			lat := poll(b, path, key, every)
			p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
			unit := "_ms"
			if every == 0 {
				unit = "_ms_no_pause"
			}
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50"+unit)
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99"+unit)
			fmt.Printf("budget-state: %d pollers × %d requests over HTTP, one every %s each, at %d events: p50 %s, p99 %s\n",
				benchPollers, benchPolls, every, events, p50, p99)
		}
	}
}

// seedEvents inserts n events in one statement (the ingest path would take
// hours at this size), then the month spend counter as ingest would have
// kept it (budget state reads nothing else).
func seedEvents(b *testing.B, dbURL, project string, n int) {
	b.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, dbURL, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	t0 := time.Now()
	steps := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO events (project_id, event_id, ts, agent_name, model, input_tokens, output_tokens, total_tokens,
    cost_nano, priced, billing)
SELECT $1, 'seed-' || i, now() - (i % 2000000) * interval '1 second', 'agent-' || (i % 20), 'gpt-4o-mini', 1000, 100, 1100,
    210000, true, CASE WHEN i % 10 = 0 THEN 'subscription' ELSE 'api' END
FROM generate_series(1, $2::bigint) AS i`, []any{project, n}},
		{`INSERT INTO spend_month (project_id, month, metered_nano)
SELECT project_id, (date_trunc('month', ts, 'UTC') AT TIME ZONE 'UTC')::date,
    coalesce(sum(cost_nano) FILTER (WHERE billing <> 'subscription'), 0)
FROM events WHERE project_id = $1 GROUP BY 1, 2
ON CONFLICT (project_id, month) DO UPDATE SET metered_nano = excluded.metered_nano`, []any{project}},
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET statement_timeout = 0`); err != nil {
		b.Fatal(err)
	}
	for _, st := range steps {
		if _, err := conn.Exec(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
	fmt.Printf("seeded %d events in %s\n", n, time.Since(t0).Round(time.Second))
}

// poll runs the pollers, each sending a request every interval (0: back
// to back), and returns every latency, sorted.
func poll(b *testing.B, url, key string, every time.Duration) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchPollers}}
	for range benchPollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, benchPolls)
			tick := time.Now()
			for range benchPolls {
				tick = tick.Add(every)
				time.Sleep(time.Until(tick))
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
				mine = append(mine, time.Since(t0))
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}
