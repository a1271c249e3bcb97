package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// benchPollers is the number of clients polling one project's budget
// state with its API key (docs/guardrails.md, "Budget state under
// pollers", says why 50 clients on a 2-core machine are measured both ways).
const benchPollers = 50

// pollShapes are the two ways the 50 pollers are run: each polling once a
// second, as a dashboard does (enforcement points poll every 15–60 s),
// their starts spread evenly over the second; and back to back,
// each sending its next request as soon as the last is answered, so that
// 50 requests are always in flight (a throughput test).
var pollShapes = []struct {
	name  string
	every time.Duration
	polls int // per poller
}{
	{"every_1s", time.Second, 30},
	{"back_to_back", 0, 200},
}

// BenchmarkBudgetStatePollers measures GET …/budget-state over HTTP against
// the built binary with 50 pollers at LLMCOST_BENCH_EVENTS stored events
// (default 10 M) and prints p50 and p99 for each shape in pollShapes, with
// the CPU one poll costs in llmcost, in PostgreSQL and in this process
// (the load generator shares the machine). Budget state reads the month's
// spend counter and the budget (one statement); the key is authenticated
// from the key cache. Run it with `make bench`.
func BenchmarkBudgetStatePollers(b *testing.B) {
	events := 10_000_000
	if v := os.Getenv("LLMCOST_BENCH_EVENTS"); v != "" {
		events, _ = strconv.Atoi(v)
	}
	// One key polled by 50 clients at up to a few thousand requests a
	// second: the default 100 a minute would answer 429.
	s := start(b, map[string]string{"LLMCOST_RATE_LIMIT": "100000000"})
	token, project, key := s.account(b)
	seedEvents(b, s.dbURL, project, events)
	// One real batch through the ingest path moves the counter too.
	batch := map[string]any{"project_id": project, "events": []any{ev("live", "gpt-4o", 1000, 100, nil)}}
	s.call(b, "POST", "/v1/events/batch", key, batch).must(b, http.StatusOK)
	s.call(b, "PUT", "/v1/projects/"+project+"/budget", token, map[string]any{"budget": 1000}).must(b, http.StatusOK)
	path := s.URL + "/v1/projects/" + project + "/budget-state"
	db, err := postgres.Open(context.Background(), s.dbURL, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// One client for all rounds: the pollers' connections stay open
	// between them, as a dashboard's do between its polls.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchPollers}}
	defer hc.CloseIdleConnections()
	for range b.N {
		poll(b, hc, path, key, 0, 10) // warm: connections, pool, key cache
		for _, shape := range pollShapes {
			before := cpuNow(b, s.cmd.Process.Pid, db)
			t0 := time.Now()
			lat := poll(b, hc, path, key, shape.every, shape.polls)
			wall := time.Since(t0)
			cpu := cpuNow(b, s.cmd.Process.Pid, db).minus(before)
			n := time.Duration(len(lat))
			p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
			b.ReportMetric(ms(p50), "p50_ms_"+shape.name)
			b.ReportMetric(ms(p99), "p99_ms_"+shape.name)
			fmt.Printf("budget-state at %d events, %d pollers %s (%d requests, %.0f/s): p50 %s, p99 %s, max %s; "+
				"CPU per poll: llmcost %s, PostgreSQL %s, load generator %s\n",
				events, benchPollers, shape.name, len(lat), float64(len(lat))/wall.Seconds(),
				p50.Round(time.Microsecond), p99.Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond),
				(cpu.server / n).Round(time.Microsecond), (cpu.postgres / n).Round(time.Microsecond),
				(cpu.client / n).Round(time.Microsecond))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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

// poll runs the pollers, each sending polls requests, one every interval
// (0: back to back), poller i starting i/benchPollers of an interval after
// the first, and returns every latency, sorted. Bodies are read to the end
// so hc's connections are kept alive, as a dashboard's or a proxy's are.
func poll(b *testing.B, hc *http.Client, url, key string, every time.Duration, polls int) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for i := range benchPollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, polls)
			tick := start.Add(every * time.Duration(i) / benchPollers)
			for range polls {
				time.Sleep(time.Until(tick))
				tick = tick.Add(every)
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mine = append(mine, time.Since(t0))
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Errorf("status %d, %v", resp.StatusCode, err)
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
