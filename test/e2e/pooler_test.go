package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/mail/smtptest"
	"github.com/llmcost/llmcost/internal/postgres/pgbouncertest"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// Two instances reach one database through a PgBouncer in transaction
// pooling mode whose pool has poolSize server connections (docs/scale.md):
// ingest (batches from both, concurrently, and OTLP), reports, a River job
// (the verification mail), the alert drain (a guardrail breach and budget
// thresholds delivered as webhooks, each once), budget state, the shared
// rate limit and the API key cache (on for the instance with a direct URL,
// off for the other) all answer as they do directly; PostgreSQL never
// serves more than the pool's connections (and the one LISTEN connection
// of the direct URL), and nothing fails for a prepared statement or a
// startup parameter.
func TestTwoInstancesThroughPgBouncerInTransactionMode(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	u, _ := url.Parse(dbURL)
	// What a direct connection sets at its start, the database's defaults
	// give pooled sessions (the pooler refuses those startup parameters).
	db := `"` + strings.TrimPrefix(u.Path, "/") + `"`
	for _, s := range []string{"statement_timeout = '60s'", "lock_timeout = '10s'", "jit = off"} {
		if err := pgbouncertest.Exec(ctx, dbURL, "ALTER DATABASE "+db+" SET "+s); err != nil {
			t.Fatal(err)
		}
	}
	const poolSize = 5
	bouncer := pgbouncertest.Start(t, dbURL, pgbouncertest.Options{PoolSize: poolSize})
	peak := watchConnections(t, bouncer, dbURL)

	rcv, smtp := newReceiver(t), smtptest.Start(t)
	env := withEnv(withEnv(rcv.env(), smtpEnv(smtp.Host(), strconv.Itoa(smtp.Port()))), map[string]string{
		"LLMCOST_DATABASE_URL": bouncer.URL, "LLMCOST_DATABASE_POOLER": "transaction", "LLMCOST_RATE_LIMIT": "1000"})
	a := start(t, withEnv(env, map[string]string{"LLMCOST_DATABASE_DIRECT_URL": dbURL}))
	b := start(t, env)

	// A River job: the verification mail of an account registered on b.
	registerOn(t, b, "pooled@example.com")
	smtp.Wait(t, "pooled@example.com", "Confirm your e-mail", 1)

	// The alert drain: one guardrail breach and three budget thresholds,
	// each delivered once, whichever instance stored the calls.
	token, project, key := a.account(t)
	base := "/v1/projects/" + project
	a.call(t, "PUT", base+"/webhook", token, map[string]any{"url": rcv.srv.URL + "/hooks", "secret": hookSecret}).must(t, 200)
	b.call(t, "PUT", base+"/guardrails", token, map[string]any{"agent_name": "bot", "allowed_models": []string{"gpt-4o-mini"}}).must(t, 201)
	a.call(t, "PUT", base+"/budget", token, map[string]any{"budget": 0.001, "mode": "warn"}).must(t, 200)
	b.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": project, "events": []any{
		agentCall("bot", "gpt-4o", "b1", 1000), agentCall("bot", "gpt-4o", "b2", 1000), agentCall("bot", "gpt-4o-mini", "b3", 10)}}).must(t, 200)

	// Batches from both instances at once, each sent to both: stored once.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 5 {
				batch := map[string]any{"project_id": project, "events": []any{agentCall("x", "gpt-4o-mini", fmt.Sprintf("w%d-%d", w, i), 1000)}}
				for j, s := range []*service{a, b} {
					r := s.call(t, "POST", "/v1/events/batch", key, batch)
					if r.Status != 200 || num(t, r.Body["events_stored"]) != float64(1-j) {
						t.Errorf("batch w%d-%d via %s: %d %s", w, i, s.URL, r.Status, r.Raw)
					}
				}
			}
		})
	}
	wg.Wait()
	// OTLP logs, through the same pipeline.
	otlp := "genai_semconv.json"
	want := readExpected(t, otlp)
	checkReply(t, b.postOTLP(t, "/v1/otlp/v1/logs", key, readOTLPFixture(t, otlp), jsonType), want)

	rcv.waitFor(t, "guardrail.breach", 1, 20*time.Second)
	rcv.waitFor(t, "budget.threshold_crossed", 3, 20*time.Second)

	// Reports and budget state: the same answer from both, counting every
	// call stored (the OTLP fixture's older than a day aside).
	stored, recent := len(a.listed(t, key)), 3+40
	for _, e := range want.Events {
		if ts, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil && time.Since(ts) < 24*time.Hour {
			recent++
		}
	}
	if stored != 3+40+len(want.Events) {
		t.Errorf("%d events stored, want %d", stored, 3+40+len(want.Events))
	}
	for path, fields := range map[string][]string{"/v1/analytics/overview?range=24h": {"total_calls", "total_cost", "total_tokens"},
		base + "/budget-state": {"spend_mtd", "thresholds_crossed", "exhausted"}} {
		ra, rb := a.call(t, "GET", path, key, nil).must(t, 200), b.call(t, "GET", path, key, nil).must(t, 200)
		for _, f := range fields {
			if fmt.Sprint(ra.Body[f]) != fmt.Sprint(rb.Body[f]) {
				t.Errorf("%s: %s from one instance, %s from the other", path, ra.Raw, rb.Raw)
			}
		}
		if strings.Contains(path, "overview") && num(t, ra.Body["total_calls"]) != float64(recent) {
			t.Errorf("overview %s, want %d calls", ra.Raw, recent)
		}
		if strings.Contains(path, "budget") && (ra.Body["exhausted"] != true || fmt.Sprint(ra.Body["thresholds_crossed"]) != "[50 80 100]") {
			t.Errorf("budget state %s", ra.Raw)
		}
	}

	// The rate limit's fixed minute must hold the rotated key's requests
	// below.
	if now := time.Now(); now.Second() > 40 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}

	// The key cache: a (direct URL) drops a rotated key as soon as the
	// NOTIFY arrives; b caches nothing.
	if !strings.Contains(b.stderr.String(), "API key cache off: behind a transaction pooler") {
		t.Errorf("b does not say its key cache is off:\n%s", b.stderr.String())
	}
	rot := b.call(t, "POST", base+"/api-key/rotate", token, nil).must(t, 200)
	newKey, _ := rot.Body["api_key"].(string)
	for _, s := range []*service{a, b} {
		deadline := time.Now().Add(2 * time.Second)
		for s.call(t, "GET", "/v1/projects/me", key, nil).Status != http.StatusUnauthorized {
			if time.Now().After(deadline) {
				t.Fatalf("%s still takes the rotated key", s.URL)
			}
			time.Sleep(20 * time.Millisecond)
		}
		s.call(t, "GET", "/v1/projects/me", newKey, nil).must(t, 200)
	}

	// The rate limit holds for the deployment: the fresh key gets its
	// 1000 requests a minute across both, less what an instance leased
	// and had not used when the other was refused (a few each).
	admitted, refused := 0, 0
	for i := 0; refused < 2 && i < 1100; i++ {
		switch r := []*service{a, b}[i%2].call(t, "GET", "/v1/projects/me", newKey, nil); r.Status {
		case 200:
			admitted, refused = admitted+1, 0
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	if admitted > 1000-2 || admitted < 1000-2-16 { // the two rotation checks above took two
		t.Errorf("%d requests admitted across both instances before both refused, want at most 998 and a few less at worst", admitted)
	}

	got := rcv.byType(t)
	if got["guardrail.breach"] != 1 || got["budget.threshold_crossed"] != 3 {
		t.Errorf("deliveries %v, want 1 breach and 3 crossings", got)
	}
	for _, s := range []*service{a, b} {
		for _, bad := range []string{"prepared statement", "unsupported startup parameter", "lack its settings", "SQLSTATE 08P01"} {
			if strings.Contains(s.stderr.String(), bad) {
				t.Errorf("%s logged %q:\n%s", s.URL, bad, s.stderr.String())
			}
		}
	}
	servers, backends, xacts := peak()
	t.Logf("peak: %d server connections in PgBouncer's pool, %d PostgreSQL backends; %d transactions pooled", servers, backends, xacts)
	if servers < 1 || servers > poolSize || backends > poolSize+1 || xacts < 100 {
		t.Errorf("peak %d server connections (pool %d), %d backends (at most the pool and a's LISTEN connection), %d transactions",
			servers, poolSize, backends, xacts)
	}
}

// watchConnections samples, until peak is called, PgBouncer's server
// connections to the database (SHOW POOLS) and PostgreSQL's backends for
// it; peak returns the highest of each and the transactions PgBouncer
// pooled (SHOW STATS).
func watchConnections(t *testing.T, b *pgbouncertest.Bouncer, dbURL string) (peak func() (servers, backends, xacts int)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var servers, backends int
	db := ""
	if u, err := url.Parse(dbURL); err == nil {
		db = strings.TrimPrefix(u.Path, "/")
	}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if pools, err := b.Pools(ctx); err == nil {
				for _, p := range pools {
					if p.Database == db {
						servers = max(servers, p.Servers())
					}
				}
			}
			if n, err := pgbouncertest.Backends(ctx, dbURL); err == nil {
				backends = max(backends, n)
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return func() (int, int, int) {
		stop()
		xacts := 0
		if rows, err := b.Show(context.Background(), "SHOW STATS"); err == nil {
			for _, r := range rows {
				if r["database"] == db {
					xacts, _ = strconv.Atoi(r["total_xact_count"])
				}
			}
		}
		return servers, backends, xacts
	}
}
