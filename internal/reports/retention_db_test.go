package reports_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

// A 7-day report of a project keeping its calls a day: its first partial
// hour lies before the raw cutoff, where the calls are gone. The report
// starts at that whole hour, read from the hourly rollups, and equals
// their sum exactly; read from the calls it would miss the hour's calls.
func TestReportEdgeBeforeTheRawCutoffIsReadFromRollups(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	start := e.now.Add(-analytics.Range7d.Duration())
	hour := start.Truncate(time.Hour)
	keepADay(t, e, hour.Add(start.Sub(hour)/2), start.Add(hour.Add(time.Hour).Sub(start)/2),
		e.now.Add(-30*time.Hour), e.now.Add(-2*time.Hour))
	// The calls before the cutoff gone, as when their month is dropped.
	if _, err := e.db.Pool.Exec(ctx, `DELETE FROM events WHERE project_id = $1 AND ts < $2`, e.project,
		e.now.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	var calls, cost int64
	if err := e.db.Pool.QueryRow(ctx, `SELECT sum(calls), sum(cost_nano) FROM rollup_hour
WHERE project_id = $1 AND dim = 'agent' AND agent_name = '' AND bucket >= $2`, e.project, hour).Scan(&calls, &cost); err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Fatalf("the hourly rollups from %s hold %d calls, want 4", hour, calls)
	}

	p, err := e.rs.Retain(ctx, e.rs.Params(e.project, "", analytics.Range7d, 10))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Window.Start.Equal(hour) || !p.Window.End.Equal(e.now) {
		t.Fatalf("window %v, want from the whole hour %s", p.Window, hour)
	}
	res, err := e.rs.ByKeys(ctx, p, 0, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if got := analytics.Total(res[0].Keys); got.Calls != calls || got.CostNano != cost {
		t.Fatalf("7d report: %d calls, %d nano; the rollups: %d, %d", got.Calls, got.CostNano, calls, cost)
	}
	f, err := e.rs.Full(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var series int64
	for _, pt := range f.Points {
		series += pt.CostNano
	}
	if f.Total.CostNano != cost || series != cost || !f.Points[0].Bucket.Equal(hour) {
		t.Fatalf("full: total %d, series %d from %s; want %d from %s", f.Total.CostNano, series, f.Points[0].Bucket, cost, hour)
	}

	// Unclipped, the raw edge finds none of the hour's calls.
	raw, err := e.db.ReadWindows(ctx, postgres.WindowQuery{ProjectID: e.project, Dim: "agent",
		Segments: analytics.Decompose(analytics.Window(analytics.Range7d, e.now), analytics.Day)})
	if err != nil {
		t.Fatal(err)
	}
	if got := analytics.Total(raw[0].Keys); got.Calls != 2 {
		t.Fatalf("the report read from the gone calls counts %d, want the 2 after the cutoff", got.Calls)
	}
}

// A 7-day report by billing narrowed to one agent, on a database upgraded
// to per-agent hourly rows (migration 0045) after the calls of its first
// day had expired: those hours have daily per-agent rows only (removed
// here, as the upgrade never wrote them), so the read starts at the whole
// day and equals the daily rows' sum; from the whole hour it would miss
// the first hour's call.
func TestAgentReportBeforeTheRawCutoffStartsAtTheDay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	start := e.now.Add(-analytics.Range7d.Duration())
	day := start.Truncate(24 * time.Hour)
	keepADay(t, e, day.Add(time.Minute), start.Add(5*time.Minute), e.now.Add(-30*time.Hour), e.now.Add(-2*time.Hour))
	cutoff := e.now.Add(-24 * time.Hour)
	for _, sql := range []string{`DELETE FROM events WHERE project_id = $1 AND ts < $2`,
		`DELETE FROM rollup_hour WHERE project_id = $1 AND agent_name <> '' AND dim <> 'model' AND bucket < $2`} {
		if _, err := e.db.Pool.Exec(ctx, sql, e.project, cutoff); err != nil {
			t.Fatal(err)
		}
	}
	var calls, cost int64
	if err := e.db.Pool.QueryRow(ctx, `SELECT sum(calls), sum(cost_nano) FROM rollup_day
WHERE project_id = $1 AND dim = 'billing' AND agent_name = 'a' AND bucket >= $2`, e.project, day).Scan(&calls, &cost); err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Fatalf("the daily rollups from %s hold %d calls, want 4", day, calls)
	}
	p, err := e.rs.Retain(ctx, e.rs.Params(e.project, "a", analytics.Range7d, 10))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.rs.ByKeys(ctx, p, 0, "billing")
	if err != nil {
		t.Fatal(err)
	}
	if got := analytics.Total(res[0].Keys); got.Calls != calls || got.CostNano != cost {
		t.Fatalf("7d by billing of agent a: %d calls, %d nano; the daily rollups: %d, %d", got.Calls, got.CostNano, calls, cost)
	}
	// Compliance reads the agent's tool use by the same rows, so it starts
	// at the whole day too, and its tool calls are all of its calls.
	if _, _, err := e.db.PutGuardrail(ctx, e.project, guardrail.Guardrail{AgentName: "a", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	c, err := e.rs.Compliance(ctx, e.project, analytics.Range7d, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents[0]
	if !c.From.Equal(day) || a.TotalCalls != calls || a.TrackedToolCalls != calls {
		t.Fatalf("7d compliance of agent a from %s: %d calls, %d tool calls; want from %s, %d of each",
			c.From, a.TotalCalls, a.TrackedToolCalls, day, calls)
	}
}

// A 24-hour report starting at minute 10 of a project keeping its calls a
// day: its first partial hour would be cheaper read as the hour's rollup
// rows less the ten minutes before the start, but those calls have expired
// (deleted here, as when their month is dropped), so the report reads the
// fifty minutes raw and counts only the calls in the window.
func TestComplementedEdgeKeepsToTheKeptCalls(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	now := e.now.Truncate(time.Hour).Add(10 * time.Minute)
	e.rs.Now = func() time.Time { return now }
	start := now.Add(-24 * time.Hour)
	keepADay(t, e, start.Add(-5*time.Minute), start.Add(5*time.Minute), now.Add(-2*time.Hour))
	if _, err := e.db.Pool.Exec(ctx, `DELETE FROM events WHERE project_id = $1 AND ts < $2`, e.project, start); err != nil {
		t.Fatal(err)
	}
	p, err := e.rs.Retain(ctx, e.rs.Params(e.project, "", analytics.Range24h, 10))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.rs.ByKeys(ctx, p, 0, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if got := analytics.Total(res[0].Keys); got.Calls != 2 || got.CostNano != 2000+4000 {
		t.Fatalf("24h report: %d calls, %d nano; want the 2 calls in the window, 6000 nano", got.Calls, got.CostNano)
	}
}

// keepADay stores one call at each of times (call i costing 1000 << i
// nano-USD), merges them into the rollups and sets the project's raw
// retention to a day.
func keepADay(t *testing.T, e env, times ...time.Time) {
	t.Helper()
	ctx := context.Background()
	var evs []event.Event
	for i, ts := range times {
		evs = append(evs, event.Event{ProjectID: e.project, EventID: fmt.Sprintf("c%d", i), AgentName: "a", Model: "gpt-4o", ToolName: "search",
			InputTokens: 10, OutputTokens: 1, TotalTokens: 11, CostNano: int64(1000 << i), Priced: true, Timestamp: ts,
			Success: true, Billing: "api", Source: "batch"})
	}
	if _, err := e.db.Write(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	for {
		res, err := e.db.MergeRollups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Groups == 0 {
			break
		}
	}
	one := 1
	if err := e.db.PutRetention(ctx, e.project, &one, nil); err != nil {
		t.Fatal(err)
	}
}
