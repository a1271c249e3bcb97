package postgres_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// costly is a metered call of one trace with a client-sent cost.
func costly(project, id string, nano int64, at time.Time) event.Event {
	ms := int64(1_000_000_000)
	return event.Event{ProjectID: project, EventID: id, AgentName: "a", Model: "m", InputTokens: pricing.MaxCallTokens,
		OutputTokens: pricing.MaxCallTokens, TotalTokens: 2 * pricing.MaxCallTokens, CostNano: nano, CostProvided: true,
		CatalogueCostNano: -1, LatencyMS: &ms, Timestamp: at, Success: true, Billing: "api", Source: "batch",
		TraceID: "t", Workflow: "w", UserID: "u", SessionID: "s"}
}

// TestSumsAtTheProjectBound stores calls at the per-call bounds until the
// project's money total is exactly pricing.MaxProjectTotal: the month
// counter, the merged rollups, the run and the budget read it exactly, and
// the next call, however small, is refused with a 422 naming the bound,
// never a 500; another project is unaffected.
func TestSumsAtTheProjectBound(t *testing.T) {
	db := openDB(t)
	p, other := newProject(t, db), newProject(t, db)
	ctx := context.Background()
	now := time.Now().UTC()
	full := pricing.MaxProjectTotal / pricing.MaxCallCostNano // 4611 calls of $1M
	rest := pricing.MaxProjectTotal - full*pricing.MaxCallCostNano
	var batch []event.Event
	for i := range full + 1 {
		nano := pricing.MaxCallCostNano
		if i == full {
			nano = rest
		}
		batch = append(batch, costly(p, fmt.Sprint("e", i), nano, now.Add(-time.Duration(i)*time.Millisecond)))
		if len(batch) == 1000 || i == full {
			if _, err := db.Write(ctx, batch, nil); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			batch = batch[:0]
		}
	}
	_, err := db.Write(ctx, []event.Event{costly(p, "one-more", 1, now)}, nil)
	if e := apierr.As(err); e.Code != apierr.ValidationFailed || !strings.Contains(e.Message, "4611686018427387904") {
		t.Fatalf("the call past the bound: %v, want validation_failed naming the bound", err)
	}
	if _, err := db.Write(ctx, []event.Event{costly(other, "x", pricing.MaxCallCostNano, now)}, nil); err != nil {
		t.Fatalf("another project: %v", err)
	}
	// Tokens and latency have the same bound: no 10^9 calls of 4×10^9
	// tokens here, the other project's totals are moved next to it.
	for col, weight := range map[string]int64{"tokens": 4 * pricing.MaxCallTokens, "latency_ms": 1_000_000_000} {
		if _, err := db.Pool.Exec(ctx, `UPDATE project_totals SET money_nano = 0, tokens = 0, latency_ms = 0 WHERE project_id = $1`, other); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Pool.Exec(ctx, `UPDATE project_totals SET `+col+` = $2::bigint WHERE project_id = $1`,
			other, pricing.MaxProjectTotal-weight); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write(ctx, []event.Event{costly(other, "at-"+col, 1, now)}, nil); err != nil {
			t.Fatalf("%s up to the bound: %v", col, err)
		}
		if _, err := db.Write(ctx, []event.Event{costly(other, "past-"+col, 1, now)}, nil); apierr.As(err).Code != apierr.ValidationFailed {
			t.Fatalf("%s past the bound: %v, want validation_failed", col, err)
		}
	}
	read, err := db.BudgetState(ctx, p, postgres.MonthStart(now))
	if err != nil || read.SpendNano != pricing.MaxProjectTotal {
		t.Fatalf("month counter %d (%v), want %d", read.SpendNano, err, pricing.MaxProjectTotal)
	}
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatalf("merging sums at the bound: %v", err)
	}
	var hour, day, week, session int64
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT sum(cost_nano)::bigint FROM rollup_hour WHERE project_id = $1 AND dim = 'agent'),
  (SELECT sum(cost_nano)::bigint FROM rollup_day WHERE project_id = $1 AND dim = 'model' AND agent_name = ''),
  (SELECT sum(cost_nano)::bigint FROM rollup_week WHERE project_id = $1 AND agent_name = ''),
  (SELECT cost_nano FROM rollup_session WHERE project_id = $1)`, p).Scan(&hour, &day, &week, &session); err != nil {
		t.Fatal(err)
	}
	if hour != pricing.MaxProjectTotal || day != hour || week != hour || session != hour {
		t.Errorf("rollups hour %d day %d week %d session %d, want %d", hour, day, week, session, pricing.MaxProjectTotal)
	}
	if err := db.FreshRuns(ctx, p); err != nil {
		t.Fatalf("run totals at the bound: %v", err)
	}
	tr, err := db.ReadTrace(ctx, p, "t")
	if err != nil || tr.Run == nil || tr.Run.CostNano != pricing.MaxProjectTotal {
		t.Fatalf("run: %+v %v", tr.Run, err)
	}
	// A budget of one nano-dollar against that spend: exact comparisons.
	if err := db.PutBudget(ctx, p, postgres.Budget{Enabled: true, Mode: "warn", BudgetNano: 1, Thresholds: []int32{100}}); err != nil {
		t.Fatal(err)
	}
	if read, err := db.BudgetState(ctx, p, postgres.MonthStart(now)); err != nil || read.SpendNano-read.Budget.BudgetNano != math.MaxInt64/2 {
		t.Fatalf("budget read %+v %v", read, err)
	}
}

// TestUpgradeRepairsAPoisonedProject replays, on a database as llmcost wrote
// it before the bounds, a call of 2^53−1 tokens stored with its cost clamped
// to the largest int64, the month counter at that value. Migration 0026
// moves the call to events_refused and RepairBounds rebuilds what it
// touched; the project ingests again and its reports hold only the good
// call.
func TestUpgradeRepairsAPoisonedProject(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	now := time.Now().UTC()
	if _, err := db.Write(ctx, []event.Event{costly(p, "good", 5, now)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `DROP TABLE project_totals, bounds_repairs, events_refused;
DELETE FROM schema_migrations WHERE version = 26`); err != nil {
		t.Fatal(err)
	}
	// What main stored: the call, its clamped cost, the counter at its
	// maximum; the call logged as migration 0027 logs the tail it finds.
	if _, err := db.Pool.Exec(ctx, `WITH e AS (INSERT INTO events (project_id, event_id, ts, agent_name, model, input_tokens,
  output_tokens, total_tokens, cost_nano, catalogue_cost_nano, priced, trace_id, workflow)
VALUES ($1, 'absurd', $2, 'a', 'gpt-4o', 9007199254740991, 0, 9007199254740991, $3, $3, true, 't', 'w') RETURNING tx, project_id)
INSERT INTO ingest_batches (tx, project_id, calls) SELECT tx, project_id, 1 FROM e`,
		p, now, int64(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE spend_month SET metered_nano = $2 WHERE project_id = $1`, p, int64(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	// What main answered from then on: bigint out of range.
	if _, err := db.Pool.Exec(ctx, `UPDATE spend_month SET metered_nano = metered_nano + 1 WHERE project_id = $1`, p); err == nil {
		t.Fatal("the poisoned counter took one more nano-dollar")
	}
	// ... and the merger could not fold the call into the hour's rollups.
	if _, err := db.MergeRollups(ctx); err == nil {
		t.Fatal("the merger added the clamped cost to 5 nano")
	}
	if n, err := db.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	if n, err := db.RepairBounds(ctx); err != nil || n != 1 {
		t.Fatalf("repair: %d %v", n, err)
	}
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatalf("the merger after the repair: %v", err)
	}
	var refused, cost int64
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM events_refused WHERE event_id = 'absurd'),
  (SELECT sum(cost_nano)::bigint FROM rollup_hour WHERE project_id = $1 AND dim = 'agent')`, p).Scan(&refused, &cost); err != nil {
		t.Fatal(err)
	}
	if refused != 1 || cost != 5 {
		t.Errorf("events_refused holds %d, rollups %d nano: want the call kept aside and 5 nano reported", refused, cost)
	}
	if _, err := db.Write(ctx, []event.Event{costly(p, "next", 7, now)}, nil); err != nil {
		t.Fatalf("the next metered batch: %v", err)
	}
	read, err := db.BudgetState(ctx, p, postgres.MonthStart(now))
	if err != nil || read.SpendNano != 12 {
		t.Fatalf("month counter %d (%v), want 12", read.SpendNano, err)
	}
	if n, err := db.RepairBounds(ctx); err != nil || n != 0 {
		t.Fatalf("a second repair: %d %v", n, err)
	}
}

// TestRepriceKeepsTheProjectBound: re-pricing moves the project's money
// total by each call's change; a price past the per-call bound is refused
// (counted, the call left as it was), and a re-pricing that would take the
// project past its bound is refused whole with a 422.
func TestRepriceKeepsTheProjectBound(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "a", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, nil),
		stored(p, "huge", "acme-llm-9000", t0.Add(time.Hour), pricing.MaxCallTokens, pricing.MaxCallTokens, nil),
	}, nil); err != nil {
		t.Fatal(err)
	}
	money := func() int64 {
		var m int64
		if err := db.Pool.QueryRow(ctx, `SELECT money_nano::bigint FROM project_totals WHERE project_id = $1`, p).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := money(); m != 0 {
		t.Fatalf("unpriced calls weigh %d", m)
	}
	f := postgres.RepriceFilter{Start: t0, End: t0.Add(24 * time.Hour), ProjectID: p}
	// At $500 in and $600 out per million: 1000 × 500 + 500 × 600 = $0.80;
	// the huge call would cost $500,000 + $600,000, past the bound.
	pricey := pricing.Merge(pricing.Builtin(), []pricing.Entry{{Model: "acme-llm-9000", Provider: "acme", Mode: "chat",
		Base: pricing.Rates{Input: 500_000_000_000_000, Output: 600_000_000_000_000}, Source: "litellm"}}, "pricey")
	res, err := db.Reprice(ctx, pricey, f, false)
	if err != nil || res.Events != 1 || res.Refused != 1 || res.NewTotal != 800_000_000 {
		t.Fatalf("reprice: %+v %v", res, err)
	}
	if m := money(); m != 800_000_000 {
		t.Fatalf("money total after re-pricing %d, want 800000000", m)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE project_totals SET money_nano = $2::bigint - 1 WHERE project_id = $1`, p, pricing.MaxProjectTotal); err != nil {
		t.Fatal(err)
	}
	dearer := pricing.Merge(pricing.Builtin(), []pricing.Entry{{Model: "acme-llm-9000", Provider: "acme", Mode: "chat",
		Base: pricing.Rates{Input: 510_000_000_000_000, Output: 600_000_000_000_000}, Source: "litellm"}}, "dearer")
	if _, err := db.Reprice(ctx, dearer, f, false); apierr.As(err).Code != apierr.ValidationFailed {
		t.Fatalf("a re-pricing past the project bound: %v, want validation_failed", err)
	}
}
