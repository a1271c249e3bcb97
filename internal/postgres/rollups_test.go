package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// rollupKey identifies one rollup row.
type rollupKey struct {
	Grain, Bucket, Dim, Key, Agent string
}

// randomEvents are calls spread over three days, with every optional
// dimension sometimes absent, and event ids drawn from a small pool so
// batches repeat each other. A replay keeps its call's timestamp: the
// three days may cross a month boundary, and a replay moved further than
// postgres.ReplayWindow into another month's partition is a new call
// (docs/api.md), which the tests' models (keepFirst) do not expect.
func randomEvents(rng *rand.Rand, project string, n int, t0 time.Time) []event.Event {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	out := make([]event.Event, n)
	for i := range out {
		id := rng.IntN(400)
		in := rng.Int64N(5000)
		cached := rng.Int64N(in/2 + 1)
		e := event.Event{ProjectID: project, EventID: fmt.Sprintf("e%d", id),
			AgentName: pick("a1", "a2", "a3"), Model: pick("m1", "m2"), InputTokens: in, OutputTokens: rng.Int64N(900),
			CachedTokens: cached, CacheWriteTokens: rng.Int64N(2) * 7, CacheWrite1hTokens: rng.Int64N(2) * 3,
			CostNano: rng.Int64N(1_000_000), Priced: rng.IntN(5) > 0, Success: rng.IntN(4) > 0,
			ReadSavingsNano: rng.Int64N(1000), WritePremiumNano: rng.Int64N(100),
			Timestamp: t0.Add(time.Duration(id) * 72 * time.Hour / 400), Source: "batch",
			Billing: pick("api", "subscription", ""), UserID: pick("", "u1", "u2"),
			Workflow: pick("", "w1", "w2"), ToolName: pick("", "t1"), TraceID: pick("", "r1", "r2")}
		e.TotalTokens = e.InputTokens + e.OutputTokens
		// Sessions of about seven hours (some inside a UTC day, some
		// crossing midnight), one lasting all along, and calls without one.
		switch rng.IntN(5) {
		case 0:
		case 1:
			e.SessionID = "long"
		default:
			e.SessionID = fmt.Sprintf("s%d", e.Timestamp.Sub(t0)/(7*time.Hour))
		}
		if rng.IntN(3) > 0 {
			l := rng.Int64N(3000)
			e.LatencyMS = &l
		}
		out[i] = e
	}
	return out
}

// callSums is what one call adds to every sum it counts in, and its
// billing as stored.
func callSums(e event.Event) (analytics.Sums, string) {
	s := analytics.Sums{Calls: 1, InputTokens: e.InputTokens, OutputTokens: e.OutputTokens,
		CachedTokens: e.CachedTokens, CacheWriteTokens: e.CacheWriteTokens + e.CacheWrite1hTokens,
		TotalTokens: e.TotalTokens, CostNano: e.CostNano, ReadSavingsNano: e.ReadSavingsNano,
		WritePremiumNano: e.WritePremiumNano}
	billing := e.Billing
	if billing == "" {
		billing = "api"
	}
	if billing == "subscription" {
		s.SubscriptionNano = e.CostNano
	}
	if e.LatencyMS != nil {
		s.LatencySum, s.LatencyCount = *e.LatencyMS, 1
	}
	if e.Success {
		s.SuccessCalls = 1
	}
	if !e.Priced {
		s.UnpricedCalls = 1
	}
	if e.CachedTokens+e.CacheWriteTokens+e.CacheWrite1hTokens > 0 {
		s.EventsWithCache = 1
	}
	if !e.Success {
		s.FailedCostNano = e.CostNano
	}
	if e.TraceID != "" {
		s.TracedCalls = 1
	}
	if e.OutputTokens > 16 {
		s.OutputOver16Calls = 1
	}
	if e.OutputTokens > 256 {
		s.OutputOver256Calls = 1
	}
	return s, billing
}

// expectRollups computes the rollup rows from the stored events in Go,
// independently of the SQL that maintains them.
//
// Sessions (rollup_session, migration 0014) are rows of grain "session"
// whose bucket is "first hour/last hour", and the longest span is the row
// of grain "span" whose key is its length in seconds.
func expectRollups(events map[string]event.Event) map[rollupKey]analytics.Sums {
	out := map[rollupKey]analytics.Sums{}
	type session struct {
		first, last time.Time
		calls       int
		sums        analytics.Sums
	}
	sessions := map[string]session{}
	defer func() {
		var span time.Duration
		for id, ss := range sessions {
			out[rollupKey{"session", ss.first.Format(time.RFC3339) + "/" + ss.last.Format(time.RFC3339), "session", id, ""}] = ss.sums
			span = max(span, ss.last.Sub(ss.first))
		}
		if len(sessions) > 0 {
			out[rollupKey{Grain: "span", Key: fmt.Sprint(int64(span.Seconds()))}] = analytics.Sums{}
		}
	}()
	for _, e := range events {
		s, billing := callSums(e)
		add := func(dim, key, agent string) {
			if key == "" {
				return
			}
			for grain, width := range map[string]time.Duration{"hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour} {
				if grain == "week" && dim != "user" {
					continue // weekly rows are the user dimension's only
				}
				k := rollupKey{grain, e.Timestamp.Truncate(width).UTC().Format(time.RFC3339), dim, key, agent}
				v := out[k]
				v.Add(s)
				out[k] = v
			}
		}
		if e.SessionID != "" {
			h := e.Timestamp.Truncate(time.Hour).UTC()
			ss := sessions[e.SessionID]
			if ss.calls == 0 || h.Before(ss.first) {
				ss.first = h
			}
			if h.After(ss.last) {
				ss.last = h
			}
			ss.calls++
			ss.sums.Add(s)
			sessions[e.SessionID] = ss
		}
		// The agents' hourly keys (agent_key_hour, migration 0019): grain
		// "key", no sums.
		for dim, key := range map[string]string{"user": e.UserID, "session": e.SessionID} {
			if key != "" {
				out[rollupKey{"key", e.Timestamp.Truncate(time.Hour).UTC().Format(time.RFC3339), dim, key, e.AgentName}] = analytics.Sums{}
			}
		}
		add("agent", e.AgentName, "")
		for dim, key := range map[string]string{"model": e.Model, "billing": billing, "user": e.UserID,
			"session": e.SessionID, "workflow": e.Workflow, "tool": e.ToolName} {
			add(dim, key, e.AgentName)
			add(dim, key, "")
		}
		if e.ToolName != "" {
			add("tool_model", postgres.ToolModelKey(e.ToolName, e.Model), e.AgentName)
		}
	}
	return out
}

func readRollups(t *testing.T, db *postgres.DB, project string) map[rollupKey]analytics.Sums {
	t.Helper()
	out := map[rollupKey]analytics.Sums{}
	for _, grain := range []string{"hour", "day", "week"} {
		rows, err := db.Pool.Query(context.Background(), `SELECT bucket, dim, key, agent_name, calls, input_tokens,
  output_tokens, cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
  latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano, events_with_cache,
  failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls
FROM rollup_`+grain+` WHERE project_id = $1`, project)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k rollupKey
			var b time.Time
			var s analytics.Sums
			if err := rows.Scan(&b, &k.Dim, &k.Key, &k.Agent, &s.Calls, &s.InputTokens, &s.OutputTokens,
				&s.CachedTokens, &s.CacheWriteTokens, &s.TotalTokens, &s.CostNano, &s.SubscriptionNano,
				&s.LatencySum, &s.LatencyCount, &s.SuccessCalls, &s.UnpricedCalls, &s.ReadSavingsNano,
				&s.WritePremiumNano, &s.EventsWithCache, &s.FailedCostNano, &s.TracedCalls, &s.OutputOver16Calls,
				&s.OutputOver256Calls); err != nil {
				t.Fatal(err)
			}
			k.Grain, k.Bucket = grain, b.UTC().Format(time.RFC3339)
			out[k] = s
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	rows, err := db.Pool.Query(context.Background(), `SELECT session_id, first_hour, last_hour, calls, input_tokens,
  output_tokens, cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
  latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano, events_with_cache,
  failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls
FROM rollup_session WHERE project_id = $1`, project)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		k := rollupKey{Grain: "session", Dim: "session"}
		var first, last time.Time
		var s analytics.Sums
		if err := rows.Scan(append([]any{&k.Key, &first, &last}, sumPointers(&s)...)...); err != nil {
			t.Fatal(err)
		}
		k.Bucket = first.UTC().Format(time.RFC3339) + "/" + last.UTC().Format(time.RFC3339)
		out[k] = s
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows, err = db.Pool.Query(context.Background(), `SELECT bucket, dim, key, agent_name FROM agent_key_hour
WHERE project_id = $1`, project)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		k := rollupKey{Grain: "key"}
		var b time.Time
		if err := rows.Scan(&b, &k.Dim, &k.Key, &k.Agent); err != nil {
			t.Fatal(err)
		}
		k.Bucket = b.UTC().Format(time.RFC3339)
		out[k] = analytics.Sums{}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	var span *int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT (SELECT extract(epoch FROM max_span)::bigint
FROM rollup_session_span WHERE project_id = $1)`, project).Scan(&span); err != nil {
		t.Fatal(err)
	}
	if span != nil {
		out[rollupKey{Grain: "span", Key: fmt.Sprint(*span)}] = analytics.Sums{}
	}
	return out
}

// sumPointers are scan destinations in rollup column order.
func sumPointers(s *analytics.Sums) []any {
	return []any{&s.Calls, &s.InputTokens, &s.OutputTokens, &s.CachedTokens, &s.CacheWriteTokens, &s.TotalTokens,
		&s.CostNano, &s.SubscriptionNano, &s.LatencySum, &s.LatencyCount, &s.SuccessCalls, &s.UnpricedCalls,
		&s.ReadSavingsNano, &s.WritePremiumNano, &s.EventsWithCache, &s.FailedCostNano, &s.TracedCalls,
		&s.OutputOver16Calls, &s.OutputOver256Calls}
}

func compareRollups(t *testing.T, when string, got, want map[rollupKey]analytics.Sums) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rollup rows, want %d", when, len(got), len(want))
	}
	for k, w := range want {
		if g := got[k]; !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: %+v\n got %+v\nwant %+v", when, k, g, w)
		}
	}
}

// merge runs the merger once, as the extension does every second.
func merge(t *testing.T, db *postgres.DB) postgres.MergeResult {
	t.Helper()
	res, err := db.MergeRollups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRollupsEqualTheEvents sends random batches that overlap each other
// (duplicates within and across batches, first copy wins), concurrently in
// pairs while two mergers race each other, and checks every rollup row
// against a Go sum over the events the first copies stored (each merged
// exactly once); then RebuildRollups must reproduce them.
func TestRollupsEqualTheEvents(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p, other := newProject(t, db), newProject(t, db)
	rng := rand.New(rand.NewPCG(9, 9))
	t0 := time.Date(2026, 5, 30, 22, 0, 0, 0, time.UTC)
	kept := map[string]event.Event{}
	a := randomEvents(rng, p, 150, t0)
	if _, err := db.Write(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(readRollups(t, db, p)); n != 0 {
		t.Fatalf("ingest wrote %d rollup rows: merging is the merger's", n)
	}
	if n, err := db.TailEvents(ctx, p); err != nil || n == 0 {
		t.Fatalf("tail after ingest: %d events, %v", n, err)
	}
	keepFirst(kept, a)
	stop := make(chan struct{})
	mergers := make(chan error, 2)
	for range 2 {
		go func() {
			for {
				select {
				case <-stop:
					mergers <- nil
					return
				default:
				}
				if _, err := db.MergeRollups(ctx); err != nil {
					mergers <- err
					return
				}
			}
		}()
	}
	for round := 0; round < 6; round++ {
		a, b := randomEvents(rng, p, 150, t0), randomEvents(rng, other, 50, t0)
		errs := make(chan error, 2)
		go func() { _, err := db.Write(ctx, a, nil); errs <- err }()
		go func() { _, err := db.Write(ctx, b, nil); errs <- err }()
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		keepFirst(kept, a)
	}
	close(stop)
	for range 2 {
		if err := <-mergers; err != nil {
			t.Fatal(err)
		}
	}
	merge(t, db)
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("tail after a merge: %d events, %v", n, err)
	}
	want := expectRollups(kept)
	compareRollups(t, "after ingest and merges", readRollups(t, db, p), want)
	if _, err := db.Pool.Exec(ctx, `DELETE FROM rollup_day WHERE project_id = $1`, p); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		t.Fatal(err)
	}
	compareRollups(t, "after RebuildRollups", readRollups(t, db, p), want)
	if len(readRollups(t, db, other)) == 0 {
		t.Fatal("the rebuild of one project removed another's rollups")
	}
	// Deleting a project removes its rollups.
	if _, err := db.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, other); err != nil {
		t.Fatal(err)
	}
	if n := len(readRollups(t, db, other)); n != 0 {
		t.Fatalf("%d rollup rows outlive their project", n)
	}
}

// TestRepriceKeepsRollupsEqualToEvents re-prices stored calls (unknown
// models becoming known, stale prices, cache savings) and checks the
// rollups against a Go sum over the events as they are afterwards.
func TestRepriceKeepsRollupsEqualToEvents(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	// The unknown calls failed: re-pricing them moves failed_cost_nano too.
	sub := func(e *event.Event) { e.Billing, e.UserID, e.Success = "subscription", "u1", false }
	cache := func(e *event.Event) { e.CachedTokens, e.CacheWriteTokens, e.Priced, e.CostNano = 600, 100, true, 1 }
	// The first two calls are merged, the other two still in the tail.
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, func(e *event.Event) { e.Success = false }),
		stored(p, "cached", "claude-sonnet-4-5", t0.Add(2*time.Hour), 1000, 100, cache),
	}, nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown-sub", "acme-llm-9000", t0.Add(26*time.Hour), 1000, 500, sub),
		stored(p, "still-unknown", "mystery-1", t0.Add(time.Hour), 1000, 500, nil),
	}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := db.Reprice(ctx, acmeCatalogue(), postgres.RepriceFilter{Start: t0, End: t0.Add(48 * time.Hour)}, false)
	if err != nil || res.Events != 3 {
		t.Fatalf("reprice: %+v %v", res, err)
	}
	events := byID(t, db, p)
	if e := events["cached"]; e.ReadSavingsNano != 1_620_000 || e.WritePremiumNano != 75_000 {
		t.Fatalf("savings after re-pricing: %+v", e)
	}
	// The merged calls' rollups moved by their deltas; the tail's not at all.
	merged := map[string]event.Event{"unknown": events["unknown"], "cached": events["cached"]}
	compareRollups(t, "after reprice, before merging the tail", readRollups(t, db, p), expectRollups(merged))
	merge(t, db)
	compareRollups(t, "after reprice and merge", readRollups(t, db, p), expectRollups(events))
}

// TestUpgradeBackfillsRollupsAndSavings takes a database back to before
// migrations 0005, 0013, 0019, 0045 and 0049 with events in it, migrates it again, and checks that
// the rollups are filled and, after BackfillSavings, that every event's
// cache savings and the rollups match the events.
func TestUpgradeBackfillsRollupsAndSavings(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Now().UTC().Add(-3 * time.Hour)
	cached := func(e *event.Event) {
		e.CachedTokens, e.CacheWriteTokens, e.CacheWrite1hTokens, e.Priced, e.CostNano = 600, 100, 100, true, 5
	}
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "cached", "claude-sonnet-4-5", t0, 1000, 100, cached),
		stored(p, "plain", "claude-sonnet-4-5", t0.Add(time.Hour), 1000, 100, func(e *event.Event) {
			e.Priced, e.ToolName = true, "Bash"
		}),
		stored(p, "unknown", "mystery-1", t0, 1000, 100, func(e *event.Event) { e.CachedTokens = 10 }),
	}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `DROP TABLE rollup_hour, rollup_day, rollup_week, pending_backfills, rollup_state;
DROP FUNCTION llmcost_rebuild_rollups(uuid, bigint);
DROP TABLE agent_key_hour; DROP FUNCTION llmcost_rebuild_agent_keys(uuid, bigint);
ALTER TABLE events DROP COLUMN read_savings_nano, DROP COLUMN write_premium_nano, DROP COLUMN tx;
DELETE FROM schema_migrations WHERE version IN (5, 13, 19, 45, 49)`); err != nil {
		t.Fatal(err)
	}
	// 0005 creates the rollups, 0013 adds the agent view's columns and
	// rebuilds, 0019 fills the agents' hourly keys, 0045 the per-agent
	// hours of the dimensions 0013 kept daily per agent, 0049 the rows by
	// tool and model together.
	if n, err := db.Migrate(ctx); err != nil || n != 5 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	compareRollups(t, "after the migration", readRollups(t, db, p), expectRollups(byID(t, db, p)))
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("the migration left %d events in the tail (%v)", n, err)
	}
	n, err := db.BackfillSavings(ctx)
	if err != nil || n != 1 {
		t.Fatalf("backfill changed %d events: %v", n, err)
	}
	events := byID(t, db, p)
	// 600 × ($3 − $0.30)/M; 100 × ($3.75 − $3)/M + 100 × ($6 − $3)/M.
	if e := events["cached"]; e.ReadSavingsNano != 1_620_000 || e.WritePremiumNano != 375_000 {
		t.Fatalf("backfilled savings %+v", e)
	}
	compareRollups(t, "after the backfill", readRollups(t, db, p), expectRollups(events))
	if n, err := db.BackfillSavings(ctx); err != nil || n != 0 {
		t.Fatalf("a second backfill changed %d (%v)", n, err)
	}
}
