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

// dimKey is the key a call has in a report dimension ("" when it has none).
func dimKey(e event.Event, dim string) string {
	_, billing := callSums(e)
	return map[string]string{"agent": e.AgentName, "model": e.Model, "billing": billing, "user": e.UserID,
		"session": e.SessionID, "workflow": e.Workflow, "tool": e.ToolName}[dim]
}

// edgesFor sets how a read takes its window's partial edge hours.
type edgesFor func(postgres.WindowQuery) postgres.WindowQuery

// rawEdges reads them raw, as analytics.Decompose leaves them.
func rawEdges(q postgres.WindowQuery) postgres.WindowQuery { return q }

// complementedAt reads them the cheaper way round at clock now
// (WindowQuery.ComplementEdges).
func complementedAt(now time.Time) edgesFor {
	return func(q postgres.WindowQuery) postgres.WindowQuery { return q.ComplementEdges(now, nil) }
}

// complementEnds are the ends of the windows checkReports reads with their
// edges complemented: now, minute 10 and 50 of earlier hours (the head hour
// read as its rollup rows less the minutes before the window at minute 10,
// raw at 50), 03:10 and 20:50 of yesterday (early and late in a day, where
// reads narrowed to one agent once took their edge days raw or as the
// day's rows less the rest). The tail is read as its hour less the part
// after the window, which the calls stamped later fill.
func complementEnds(now time.Time) []time.Time {
	h, d := now.Truncate(time.Hour), now.Truncate(24*time.Hour).Add(-24*time.Hour)
	return []time.Time{now, h.Add(-2*time.Hour + 10*time.Minute), h.Add(-5*time.Hour + 50*time.Minute),
		d.Add(3*time.Hour + 10*time.Minute), d.Add(20*time.Hour + 50*time.Minute)}
}

// checkReports runs checkReportsWith with the edges raw, and complemented
// with windows ending at each of complementEnds, and the compliance read
// over windows ending at each of them.
func checkReports(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, now time.Time, when string) {
	t.Helper()
	checkReportsWith(t, db, p, events, now, when, rawEdges)
	for _, end := range complementEnds(now) {
		checkReportsWith(t, db, p, events, end, when+", edges complemented, ending "+end.Format("15:04"), complementedAt(end))
		checkCompliance(t, db, p, events, end, when)
	}
}

// checkReportsWith reads every dimension over 24h, 7d and 90d ending now,
// for all agents and narrowed to one, its edges as edges sets, and
// compares each key's sums with a Go sum over the stored calls in the
// window; plus the hourly time series of 7d, /full and the session read.
func checkReportsWith(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, now time.Time, when string,
	edges edgesFor) {
	t.Helper()
	ctx := context.Background()
	for _, r := range []analytics.Range{analytics.Range24h, analytics.Range7d, analytics.Range90d} {
		w := analytics.Window(r, now)
		for _, agent := range []string{"", "a2"} {
			for _, dim := range []string{"agent", "model", "billing", "user", "session", "workflow", "tool"} {
				grain := analytics.Day
				if dim == "user" {
					grain = analytics.Week
				}
				res, err := db.ReadWindows(ctx, edges(postgres.WindowQuery{ProjectID: p, Dim: dim, AgentName: agent,
					Segments: analytics.Decompose(w, grain)}))
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]analytics.Sums{}
				for _, k := range res[0].Keys {
					got[k.Key] = k.Sums
				}
				want := map[string]analytics.Sums{}
				for _, e := range events {
					key := dimKey(e, dim)
					if key == "" || (agent != "" && e.AgentName != agent) || e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
						continue
					}
					s, _ := callSums(e)
					v := want[key]
					v.Add(s)
					want[key] = v
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s by %s, agent %q:\n got %+v\nwant %+v", when, r, dim, agent, got, want)
				}
			}
		}
	}
	w := analytics.Window(analytics.Range7d, now)
	res, err := db.ReadWindows(ctx, edges(postgres.WindowQuery{ProjectID: p, Dim: "agent",
		Segments: analytics.Decompose(w, analytics.Hour), BucketWidth: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	got, want := map[time.Time]analytics.Sums{}, map[time.Time]analytics.Sums{}
	for _, pt := range res[0].Points {
		got[pt.Bucket] = pt.Sums
	}
	for _, e := range events {
		if e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
			continue
		}
		s, _ := callSums(e)
		b := e.Timestamp.Truncate(time.Hour).UTC()
		v := want[b]
		v.Add(s)
		want[b] = v
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: 7d hourly series:\n got %+v\nwant %+v", when, got, want)
	}
	checkAgentDays(t, db, p, events, w, when, edges)
	checkFull(t, db, p, events, now, when, edges)
	checkSessionTop(t, db, p, events, now, when, edges)
}

// checkAgentDays reads w as the agent view does: the sums per agent and
// UTC day, and per agent and model (PerAgent), and compares them with Go
// sums over the stored calls in w.
func checkAgentDays(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, w analytics.Span, when string,
	edges edgesFor) {
	t.Helper()
	seg := analytics.Decompose(w, analytics.Day)
	res, err := db.ReadWindows(context.Background(),
		edges(postgres.WindowQuery{ProjectID: p, Dim: "agent", Segments: seg, BucketWidth: 24 * time.Hour, KeyBuckets: true}),
		edges(postgres.WindowQuery{ProjectID: p, Dim: "model", PerAgent: true, Segments: seg}))
	if err != nil {
		t.Fatal(err)
	}
	gotDays, gotModels := map[string]analytics.Sums{}, map[string]analytics.Sums{}
	for _, kp := range res[0].KeyPoints {
		gotDays[kp.Key+" "+kp.Bucket.Format(time.DateOnly)] = kp.Sums
	}
	for _, k := range res[1].Keys {
		gotModels[k.Key] = k.Sums
	}
	wantDays, wantModels := map[string]analytics.Sums{}, map[string]analytics.Sums{}
	for _, e := range events {
		if e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
			continue
		}
		s, _ := callSums(e)
		day, model := wantDays[e.AgentName+" "+e.Timestamp.UTC().Format(time.DateOnly)], wantModels[e.AgentName+"\x1f"+e.Model]
		day.Add(s)
		model.Add(s)
		wantDays[e.AgentName+" "+e.Timestamp.UTC().Format(time.DateOnly)], wantModels[e.AgentName+"\x1f"+e.Model] = day, model
	}
	if !reflect.DeepEqual(gotDays, wantDays) || !reflect.DeepEqual(gotModels, wantModels) {
		t.Fatalf("%s: 7d by agent and day:\n got %+v\nwant %+v\nby agent and model:\n got %+v\nwant %+v", when,
			gotDays, wantDays, gotModels, wantModels)
	}
}

// edgeOnlyEvents are calls whose keys (agent, model, user, session,
// workflow, tool: edge-<n>) have no other call, each a few minutes before
// the start or after the end of a window checkReports reads with its edges
// complemented: in the window's edge hour, outside the window, so their
// keys net to no call there and must not be listed.
func edgeOnlyEvents(p string, now time.Time) []event.Event {
	var at []time.Time
	for _, end := range complementEnds(now) {
		at = append(at, end.Add(5*time.Minute))
		for _, r := range []analytics.Range{analytics.Range24h, analytics.Range7d, analytics.Range90d} {
			at = append(at, analytics.Window(r, end).Start.Add(-5*time.Minute))
		}
	}
	out := make([]event.Event, len(at))
	for i, ts := range at {
		k := fmt.Sprintf("edge-%d", i)
		out[i] = event.Event{ProjectID: p, EventID: k, AgentName: k, Model: k, UserID: k, SessionID: k, Workflow: k,
			ToolName: k, InputTokens: 100, OutputTokens: 20, TotalTokens: 120, CostNano: 5000, Priced: true,
			Success: true, Timestamp: ts, Source: "batch", Billing: "api"}
	}
	return out
}

// TestReportsExactWhateverTheMerger reads every report, compared with Go
// sums over the stored calls, with nothing merged (every call in the
// tail), after a merge, while a long transaction holds the merger back
// (new calls stay in the tail after merging), and once it has ended.
func TestReportsExactWhateverTheMerger(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(4, 2))
	now := time.Now().UTC()
	kept := map[string]event.Event{}
	write := func(n int) {
		t.Helper()
		batch := randomEvents(rng, p, n, now.Add(-71*time.Hour))
		for i := range batch {
			batch[i].EventID += "-" + batch[i].Timestamp.Format(time.RFC3339Nano) // fewer repeats
		}
		if _, err := db.Write(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
		keepFirst(kept, batch)
	}
	write(300)
	write(300)
	edge := edgeOnlyEvents(p, now)
	if _, err := db.Write(ctx, edge, nil); err != nil {
		t.Fatal(err)
	}
	for _, e := range edge {
		kept[e.EventID] = e
	}
	if n := len(readRollups(t, db, p)); n != 0 {
		t.Fatalf("%d rollup rows before any merge", n)
	}
	checkReports(t, db, p, kept, now, "nothing merged")

	merge(t, db)
	checkReports(t, db, p, kept, now, "after a merge")

	// A transaction with an id, left open, holds xmin (and so the
	// watermark) below every later call.
	long, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Rollback(ctx)
	if _, err := long.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	write(300)
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	if n, err := db.TailEvents(ctx, p); err != nil || n == 0 {
		t.Fatalf("tail behind a long transaction: %d events (%v)", n, err)
	}
	if merged, err := db.MergedTo(ctx, horizon); err != nil || merged {
		t.Fatalf("merged to the horizon behind a long transaction: %v (%v)", merged, err)
	}
	checkReports(t, db, p, kept, now, "merged behind a long transaction")
	if err := long.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("tail after the long transaction: %d events (%v)", n, err)
	}
	if merged, err := db.MergedTo(ctx, horizon); err != nil || !merged {
		t.Fatalf("not merged to the horizon after the long transaction: %v (%v)", merged, err)
	}
	checkReports(t, db, p, kept, now, "merged after the long transaction")
	compareRollups(t, "after the last merge", readRollups(t, db, p), expectRollups(kept))
}

// TestTailReadWithinUnmergedSpan: reports read a project's unmerged calls
// only within the time span its logged batches give (migration 0036), and
// stay exact: with another project's calls unmerged beside merged ones,
// with a project's own calls unmerged over three days, and with batches
// logged before the bounds existed (NULL: unbounded).
func TestTailReadWithinUnmergedSpan(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p, q := newProject(t, db), newProject(t, db)
	rng := rand.New(rand.NewPCG(7, 3))
	now := time.Now().UTC()
	kept := map[string]event.Event{}
	write := func(project string, n int, from time.Time) {
		t.Helper()
		batch := randomEvents(rng, project, n, from)
		for i := range batch {
			batch[i].EventID += "-" + batch[i].Timestamp.Format(time.RFC3339Nano)
		}
		if _, err := db.Write(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
		if project != p {
			return
		}
		keepFirst(kept, batch)
	}
	write(p, 300, now.Add(-71*time.Hour))
	merge(t, db)
	write(q, 300, now.Add(-71*time.Hour)) // the other project's tail only
	checkReports(t, db, p, kept, now, "another project's calls unmerged")
	write(p, 300, now.Add(-71*time.Hour))
	checkReports(t, db, p, kept, now, "its own calls unmerged over three days")
	if _, err := db.Pool.Exec(ctx, `UPDATE ingest_batches SET min_ts = NULL, max_ts = NULL WHERE project_id = $1`, p); err != nil {
		t.Fatal(err)
	}
	checkReports(t, db, p, kept, now, "batches logged without bounds")
	merge(t, db)
	checkReports(t, db, p, kept, now, "all merged")
	// A batch of one call, alone in the tail: its span starts and ends at
	// that call.
	one := callAt(p, "alone", now.Add(-30*time.Hour).Truncate(time.Hour).Add(17*time.Minute+time.Microsecond))
	if _, err := db.Write(ctx, []event.Event{one}, nil); err != nil {
		t.Fatal(err)
	}
	kept[one.EventID] = one
	checkReports(t, db, p, kept, now, "a batch of one call unmerged")
}
