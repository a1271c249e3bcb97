package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/jobs"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

const oneUSD = int64(1_000_000_000)

// spendAt stores one metered call of agent at the clock's instant.
func (e *env) spendAt(project, agent, id string, nano int64) {
	e.t.Helper()
	ev := event.Event{ProjectID: project, EventID: id, AgentName: agent, Model: "gpt-4o", InputTokens: 1, OutputTokens: 1,
		TotalTokens: 2, CostNano: nano, Priced: true, Success: true, Source: "batch", Timestamp: e.clock.Now()}
	if _, err := e.db.Write(context.Background(), []event.Event{ev}, nil); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) setClock(t time.Time) { e.clock.mu.Lock(); e.clock.now = t; e.clock.mu.Unlock() }

// capture records the deliveries db queues.
func capture(db *postgres.DB) func() []webhook.Envelope {
	var mu sync.Mutex
	var queued []webhook.Envelope
	db.Enqueue = func(_ context.Context, _ pgx.Tx, envs []webhook.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		queued = append(queued, envs...)
		return nil
	}
	return func() []webhook.Envelope {
		mu.Lock()
		defer mu.Unlock()
		return append([]webhook.Envelope(nil), queued...)
	}
}

func (e *env) notices(project, typ string) int {
	e.t.Helper()
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications WHERE project_id = $1 AND type = $2`,
		project, typ).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// A month whose daily spend rises ($1 on the 1st, $2 on the 2nd, …) under a
// $300 budget: the projection passes the budget on the 20th, four days
// before the spend does, and two instances evaluating every day alert it
// once: one notification, one signed delivery. The budget state carries
// the projection.
func TestForecastAlertsOnceBeforeTheCap(t *testing.T) {
	e := newEnv(t)
	u := e.register("forecast")
	p := u.ProjectID
	ctx := context.Background()
	e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Access, map[string]any{"budget": 300}), 200)
	if err := e.db.PutWebhook(ctx, p, "https://hooks.example.com/llmcost", "secret-0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	other, err := postgres.Open(ctx, e.db.Pool.Config().ConnString(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	queuedA, queuedB := capture(e.db), capture(other)
	watches := []*jobs.SpendWatch{{DB: e.db, Now: e.clock.Now, Log: zap.NewNop()}, {DB: other, Now: e.clock.Now, Log: zap.NewNop()}}

	alertedOn := 0
	for d := 1; d <= 30; d++ {
		e.setClock(time.Date(2026, time.June, d, 0, 30, 0, 0, time.UTC)) // June 2026 starts on a Monday
		e.spendAt(p, "a", fmt.Sprintf("d%d", d), int64(d)*oneUSD)
		for _, w := range watches {
			if _, err := w.Run(ctx); err != nil {
				t.Fatalf("June %d: %v", d, err)
			}
		}
		if alertedOn == 0 && e.notices(p, webhook.TypeBudgetForecastExceeded) > 0 {
			alertedOn = d
		}
		if d == 20 {
			// Weekdays so far $1–5, 8–12, 15–19 (median $10), weekends $6, 7,
			// 13, 14 (median $10); today (a Saturday) $20 so far; ten days
			// remain: 190 + 20 + 10 × 10. Low and high: weekday 20th/80th
			// percentiles $3/$16, weekend $6/$14 over 7 weekdays and 3
			// weekend days.
			r := e.must(e.do("GET", "/v1/projects/"+p+"/budget-state", u.Key, nil), 200)
			got := fmt.Sprint(r.Body["spend_mtd"], " ", r.Body["forecast_month_end"], " ", r.Body["forecast_low"], " ",
				r.Body["forecast_high"], " ", r.Body["forecast_exhausted_at"])
			if want := "210 310 249 364 2026-06-29"; got != want {
				t.Errorf("budget state on the 20th: got %q, want %q (%s)", got, want, r.Raw)
			}
			f := e.must(e.do("GET", "/v1/analytics/forecast", u.Key, nil), 200)
			if len(items(f, "history")) != 28 || len(items(f, "projection")) != 11 || f.Body["exceeds_budget"] != true ||
				fmt.Sprint(f.Body["spend_today"]) != "20" {
				t.Errorf("forecast on the 20th: %s", f.Raw)
			}
		}
	}
	if alertedOn != 20 {
		t.Errorf("forecast alerted on June %d, want the 20th (spend reaches the budget on the 24th)", alertedOn)
	}
	if n := e.notices(p, webhook.TypeBudgetForecastExceeded); n != 1 {
		t.Errorf("%d forecast notifications, want 1", n)
	}
	var forecasts []webhook.Envelope
	for _, env := range append(queuedA(), queuedB()...) {
		if env.Type == webhook.TypeBudgetForecastExceeded {
			forecasts = append(forecasts, env)
		}
	}
	if len(forecasts) != 1 {
		t.Fatalf("%d forecast deliveries, want 1", len(forecasts))
	}
	if want := `"month":"2026-06","budget":300,"spend_mtd":210,"forecast_month_end":310`; !strings.Contains(string(forecasts[0].Data), want) {
		t.Errorf("payload %s, want it to hold %s", forecasts[0].Data, want)
	}
}

// A project spending $10 a day through agent a, but $90 on June 10: the
// anomaly endpoint finds that day for the project and for the agent, and
// two instances alert each scope's day once.
func TestAnomaliesFindASpikedDay(t *testing.T) {
	e := newEnv(t)
	u := e.register("anomaly")
	p := u.ProjectID
	ctx := context.Background()
	capture(e.db)
	for d := time.Date(2026, time.May, 1, 9, 0, 0, 0, time.UTC); d.Before(time.Date(2026, time.June, 15, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		e.setClock(d)
		nano := 10 * oneUSD
		if d.Day() == 10 && d.Month() == time.June {
			nano = 90 * oneUSD
		}
		e.spendAt(p, "a", d.Format("2006-01-02"), nano)
	}
	e.setClock(time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC))
	r := e.must(e.do("GET", "/v1/analytics/anomalies", u.Key, nil), 200)
	rows := items(r, "anomalies")
	if len(rows) != 2 || r.Body["range"] != "30d" {
		t.Fatalf("anomalies: %s", r.Raw)
	}
	got := fmt.Sprint(rows[0]["day"], rows[0]["scope"], rows[0]["agent_name"], rows[0]["spend"], rows[0]["baseline_median"], " ",
		rows[1]["day"], rows[1]["scope"], rows[1]["agent_name"], rows[1]["threshold"])
	if want := "2026-06-10project<nil> 90 10 2026-06-10agenta20"; got != want {
		t.Errorf("anomalies: got %q, want %q", got, want)
	}
	e.must(e.do("GET", "/v1/analytics/anomalies?range=24h", u.Key, nil), 422)
	if header, csvRows := readCSV(t, e.raw("/v1/analytics/anomalies?format=csv", u.Key, nil).Body); len(csvRows) != 2 ||
		column(t, header, csvRows, "spend")[0] != "90" {
		t.Errorf("anomalies CSV: %v %v", header, csvRows)
	}
	// The signal on the overview (the project's days) and the agent view
	// (each agent's).
	o := e.must(e.do("GET", "/v1/analytics/overview?range=30d", u.Key, nil), 200)
	if a := items(o, "anomalies"); len(a) != 1 || a[0]["day"] != "2026-06-10" || a[0]["scope"] != "project" {
		t.Errorf("overview anomalies: %s", o.Raw)
	}
	sum := e.must(e.do("GET", "/v1/analytics/agents/summary?range=30d", u.Key, nil), 200)
	var agents []map[string]any
	if err := json.Unmarshal([]byte(sum.Raw), &agents); err != nil || len(agents) != 1 {
		t.Fatalf("summary: %s", sum.Raw)
	}
	if a, _ := agents[0]["anomalies"].([]any); len(a) != 1 || fmt.Sprint(a[0].(map[string]any)["spend"]) != "90" {
		t.Errorf("agent anomalies: %s", sum.Raw)
	}

	// The evaluation judges yesterday and today: on the 11th it finds the
	// 10th's two scopes, once across two instances.
	e.setClock(time.Date(2026, time.June, 11, 0, 5, 0, 0, time.UTC))
	other, err := postgres.Open(ctx, e.db.Pool.Config().ConnString(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	capture(other)
	sent := 0
	for _, db := range []*postgres.DB{e.db, other, e.db} {
		n, err := (&jobs.SpendWatch{DB: db, Now: e.clock.Now}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sent += n
	}
	if n := e.notices(p, webhook.TypeSpendAnomaly); sent != 2 || n != 2 {
		t.Errorf("sent %d anomaly alerts, %d notifications; want 2 (project and agent a)", sent, n)
	}
}

// items is an answer's array of objects under key.
func items(r resp, key string) []map[string]any {
	var out []map[string]any
	list, _ := r.Body[key].([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}
