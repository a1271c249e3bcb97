package alerts_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// TestQueuedBreachesAlertOnceWhicheverInstanceDrains: two instances (two
// hooks) ingest batches that find the same breaches and queue them; two
// drains run at once. Every (agent, subject, kind) is alerted once in the
// hour (one guardrail_alerts row, one notification, one delivery), the
// queue ends empty, and a hook that drained queues nothing more for keys
// it saw alerted.
func TestQueuedBreachesAlertOnceWhicheverInstanceDrains(t *testing.T) {
	ctx := context.Background()
	db := migratedDB(t)
	var mu sync.Mutex
	delivered := map[string]int{}
	db.Enqueue = func(_ context.Context, _ pgx.Tx, envs []webhook.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range envs {
			delivered[string(e.Data)]++
		}
		return nil
	}
	p := project(t, db)
	if err := db.PutWebhook(ctx, p, "https://example.com/hook", "whsec_test"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutGuardrail(ctx, p, guardrail.Guardrail{AgentName: "a", AllowedTools: []string{"search"},
		AllowedModels: []string{"m1"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	hooks := []*alerts.Hook{alerts.New(nil, nil), alerts.New(nil, nil)}
	now := time.Now().UTC()
	for i := range 6 { // each batch: model m2 and tool shell, both undeclared
		ev := []event.Event{
			{ProjectID: p, EventID: fmt.Sprintf("m%d", i), AgentName: "a", Model: "m2", Priced: true, Source: "batch", Timestamp: now},
			{ProjectID: p, EventID: fmt.Sprintf("t%d", i), AgentName: "a", Model: "m1", ToolName: "shell", Priced: true,
				Source: "batch", Timestamp: now},
		}
		if _, err := db.WriteWith(ctx, hooks[i%2], ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM alerts_pending`); n != 6 {
		t.Fatalf("%d queued rows, want one per batch (6)", n)
	}
	if n := count(t, db, `SELECT count(*) FROM notifications`); n != 0 {
		t.Fatalf("%d notifications before any drain", n)
	}
	var wg sync.WaitGroup
	taken := make([]int, 2)
	for i, h := range hooks {
		wg.Go(func() {
			n, err := h.Drain(ctx, db)
			if err != nil {
				t.Error(err)
			}
			taken[i] = n
		})
	}
	wg.Wait()
	if taken[0]+taken[1] != 6 || count(t, db, `SELECT count(*) FROM alerts_pending`) != 0 {
		t.Fatalf("the drains took %v of 6 rows", taken)
	}
	if a, n := count(t, db, `SELECT count(*) FROM guardrail_alerts`), count(t, db, `SELECT count(*) FROM notifications`); a != 2 || n != 2 {
		t.Fatalf("%d alerts and %d notifications, want 2 of each", a, n)
	}
	if len(delivered) != 2 {
		t.Fatalf("deliveries %v, want one for each of the two breaches", delivered)
	}
	for body, n := range delivered {
		if n != 1 {
			t.Errorf("%d deliveries of %s", n, body)
		}
	}
	// A hook that drained a row (each holds both breaches) knows both keys
	// alerted: its batches queue nothing.
	for i, h := range hooks {
		if taken[i] == 0 {
			continue // this hook drained nothing, so it learnt nothing
		}
		ev := []event.Event{{ProjectID: p, EventID: fmt.Sprintf("again-%d", i), AgentName: "a", Model: "m2", ToolName: "shell",
			Priced: true, Source: "batch", Timestamp: now}}
		if _, err := db.WriteWith(ctx, h, ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM alerts_pending`); n != 0 {
		t.Errorf("%d rows queued for breaches already alerted", n)
	}
}

func count(t *testing.T, db *postgres.DB, sql string) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAlertedRunsAreNotReadAgain: once a run's alerts of the hour are
// drained for every per-run limit of its agent's guardrail, the hook no
// longer asks for its totals; a run alerted for one limit only, or a new
// run, still has them read.
func TestAlertedRunsAreNotReadAgain(t *testing.T) {
	ctx := context.Background()
	db := migratedDB(t)
	p := project(t, db)
	maxTools, maxCost := int64(1), int64(1_000)
	if _, _, err := db.PutGuardrail(ctx, p, guardrail.Guardrail{AgentName: "a", MaxToolCallsPerRun: &maxTools,
		MaxCostPerRunNano: &maxCost, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	hook := alerts.New(nil, nil)
	now := time.Now().UTC()
	n := 0
	call := func(trace string, cost int64) event.Event {
		n++
		return event.Event{ProjectID: p, EventID: fmt.Sprint("e", n), AgentName: "a", Model: "m", ToolName: "search",
			CostNano: cost, Priced: true, Source: "batch", Timestamp: now, TraceID: trace, Workflow: "wf"}
	}
	write := func(evs ...event.Event) {
		t.Helper()
		if _, err := db.WriteWith(ctx, hook, evs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := hook.Drain(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	wanted := func(traces ...string) string {
		var evs []event.Event
		for _, tr := range traces {
			evs = append(evs, call(tr, 0))
		}
		var out []string
		for _, r := range hook.WantRunTotals(evs) {
			out = append(out, r.TraceIDs...)
		}
		return fmt.Sprint(out)
	}
	// r1: two tool calls (over 1) and cost under the limit; r2: over both.
	// (A batch alerts each kind once per agent, on its worst run: hence two
	// batches.)
	write(call("r1", 1), call("r1", 1))
	write(call("r2", 600), call("r2", 600))
	if got := count(t, db, `SELECT count(*) FROM guardrail_alerts`); got != 3 {
		t.Fatalf("%d alerts, want r1's tool calls and r2's tool calls and cost", got)
	}
	if got := wanted("r1", "r2", "r3"); got != "[r1 r3]" {
		t.Errorf("runs read: %s, want r1 (its cost limit not alerted) and r3 (new), not r2", got)
	}
	// r1 goes over its cost limit in a later batch: alerted, then not read.
	write(call("r1", 5_000))
	if got := count(t, db, `SELECT count(*) FROM guardrail_alerts WHERE subject = 'r1'`); got != 2 {
		t.Fatalf("r1 has %d alerts, want 2", got)
	}
	if got := wanted("r1", "r2"); got != "[]" {
		t.Errorf("runs read: %s, want none", got)
	}
}

// TestAFailingQueuedRowHoldsNothingBack: a queued row the drain cannot
// alert (its payload is not what ingest writes) stays queued and is named
// in the drain's error; the rows queued before and after it are alerted.
func TestAFailingQueuedRowHoldsNothingBack(t *testing.T) {
	ctx := context.Background()
	db := migratedDB(t)
	p := project(t, db)
	if _, _, err := db.PutGuardrail(ctx, p, guardrail.Guardrail{AgentName: "a", AllowedModels: []string{"m1"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	hook := alerts.New(nil, nil)
	now := time.Now().UTC()
	write := func(id, model string) {
		t.Helper()
		ev := []event.Event{{ProjectID: p, EventID: id, AgentName: "a", Model: model, Priced: true, Source: "batch", Timestamp: now}}
		if _, err := db.WriteWith(ctx, hook, ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("before", "m2")
	var bad int64
	if err := db.Pool.QueryRow(ctx, `INSERT INTO alerts_pending (project_id, hour, judged_at, breaches)
VALUES ($1, date_trunc('hour', now()), now(), '{"not": "a list"}') RETURNING id`, p).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	write("after", "m3")
	n, err := hook.Drain(ctx, db)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("queued alert %d", bad)) {
		t.Fatalf("drain error %v, want one naming row %d", err, bad)
	}
	if n != 2 {
		t.Errorf("the drain took %d rows, want the 2 around the bad one", n)
	}
	var subjects string
	if err := db.Pool.QueryRow(ctx, `SELECT string_agg(subject, ' ' ORDER BY subject) FROM guardrail_alerts`).Scan(&subjects); err != nil {
		t.Fatal(err)
	}
	if subjects != "m2 m3" {
		t.Errorf("alerted %q, want m2 m3", subjects)
	}
	if left := count(t, db, `SELECT count(*) FROM alerts_pending`); left != 1 {
		t.Errorf("%d rows left queued, want the bad one", left)
	}
}
