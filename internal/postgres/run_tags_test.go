package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/semconv"
)

// taggedRuns are the calls of n runs of project starting over 60 hours
// after t0, each call with its own time and one of tagCases' metadata, so
// a run's calls carry different teams and only the first call's counts.
func taggedRuns(rng *rand.Rand, project string, n int, t0 time.Time) []event.Event {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	var out []event.Event
	for r := range n {
		start := t0.Add(time.Duration(rng.IntN(60*60)) * time.Minute)
		for c := range 1 + rng.IntN(6) {
			e := event.Event{ProjectID: project, EventID: fmt.Sprintf("r%d-c%d", r, c), AgentName: pick("a1", "a2"),
				Model: pick("m1", "m2"), InputTokens: int64(rng.IntN(3) * 100), OutputTokens: 5,
				CostNano: rng.Int64N(1_000_000), Priced: true, Success: rng.IntN(4) > 0, Source: "batch",
				Timestamp: start.Add(time.Duration(c*7) * time.Minute), TraceID: fmt.Sprintf("t%d", r),
				SpanID: fmt.Sprintf("s%d", c), Workflow: pick("", "w1", "w2"), StepName: pick("", "plan", "act"),
				ToolName: pick("", "web"), RequestHash: pick("", "h1"),
				Metadata: []byte(tagCases[rng.IntN(len(tagCases))].meta)}
			e.TotalTokens = e.InputTokens + e.OutputTokens
			out = append(out, e)
		}
	}
	return out
}

// firstCalls is each run's first call's metadata (by time, then event id,
// as internal/runs orders a run's calls).
func firstCalls(events []event.Event) map[string]string {
	first := map[string]event.Event{}
	for _, e := range events {
		f, ok := first[e.TraceID]
		if !ok || e.Timestamp.Before(f.Timestamp) || (e.Timestamp.Equal(f.Timestamp) && e.EventID < f.EventID) {
			first[e.TraceID] = e
		}
	}
	out := map[string]string{}
	for trace, e := range first {
		out[trace] = string(e.Metadata)
	}
	return out
}

// firstCallTeams is each run's team: its first call's.
func firstCallTeams(events []event.Event) map[string]string {
	teams := map[string]string{}
	for trace, meta := range firstCalls(events) {
		for _, c := range tagCases {
			if c.meta == meta {
				teams[trace] = c.team
			}
		}
	}
	return teams
}

// runReports reads every run report of q.
func runReports(t *testing.T, db *postgres.DB, q postgres.RunQuery) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	var err error
	check := func(name string, v any, e error) {
		if e != nil {
			t.Fatalf("%s of %+v: %v", name, q, e)
		}
		out[name] = v
	}
	wf, err := db.WorkflowRows(ctx, q)
	check("workflows", wf, err)
	st, err := db.StepRows(ctx, q)
	check("steps", st, err)
	tl, err := db.ToolRows(ctx, q)
	check("tools", tl, err)
	rp, err := db.RepeatRows(ctx, q)
	check("repeats", rp, err)
	tr, err := db.TraceRows(ctx, q)
	check("traces", tr, err)
	ag, err := db.ReadAgentRuns(ctx, q)
	check("agents", ag, err)
	w := q
	w.Workflow, w.HasWorkflow = "w1", true
	costs, err := db.RunCosts(ctx, w)
	slices.Sort(costs)
	check("costs of w1", costs, err)
	wt, err := db.ToolRows(ctx, w)
	check("tools of w1", wt, err)
	return out
}

// TestTagFilteredRunReportsEqualTheRunsOfTheValue stores tagged runs in a
// project that declares team, and for each of several values the calls of
// only the runs whose first call has it in a project without tags: every
// run report of the first narrowed to the value equals the second's
// unfiltered report (read from the rollups) over windows with partial days,
// and the run count and cost equal Go sums. A key declared later reaches
// the stored runs through the back-fill.
func TestTagFilteredRunReportsEqualTheRunsOfTheValue(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 6, 1, 20, 0, 0, 0, time.UTC)
	events := taggedRuns(rng, p, 120, t0)
	var outcomes []semconv.Outcome
	for r := range 120 {
		if rng.IntN(3) > 0 {
			outcomes = append(outcomes, semconv.Outcome{ProjectID: p, TraceID: fmt.Sprintf("t%d", r), Success: rng.IntN(2) == 0})
		}
	}
	// Two batches, the second adding calls to runs of the first.
	half := len(events) / 2
	if _, err := db.Write(ctx, events[:half], outcomes); err != nil {
		t.Fatal(err)
	}
	mergeRuns(t, db)
	if _, err := db.Write(ctx, events[half:], nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	mergeRuns(t, db)
	teams := firstCallTeams(events)
	windows := [][2]time.Time{{t0.Add(-time.Hour), t0.Add(70 * time.Hour)}, {t0.Add(5*time.Hour + 30*time.Minute), t0.Add(40 * time.Hour)}}
	for _, team := range []string{"payments", "search", postgres.TagNone, postgres.TagInvalid} {
		// The runs of the value alone, in a project of their own.
		only := newProject(t, db)
		var es []event.Event
		var oc []semconv.Outcome
		for _, e := range events {
			if teams[e.TraceID] == team {
				e.ProjectID = only
				es = append(es, e)
			}
		}
		for _, o := range outcomes {
			if teams[o.TraceID] == team {
				o.ProjectID = only
				oc = append(oc, o)
			}
		}
		if len(es) == 0 {
			t.Fatalf("no run of team %s", team)
		}
		if _, err := db.Write(ctx, es, oc); err != nil {
			t.Fatal(err)
		}
		merge(t, db)
		mergeRuns(t, db)
		for _, w := range windows {
			got := runReports(t, db, postgres.RunQuery{ProjectID: p, Start: w[0], End: w[1], Tag: "team", TagValue: team})
			want := runReports(t, db, postgres.RunQuery{ProjectID: only, Start: w[0], End: w[1]})
			for name := range want {
				if !reflect.DeepEqual(got[name], want[name]) {
					t.Errorf("team %s over %v, %s:\n tagged %+v\n   runs %+v", team, w, name, got[name], want[name])
				}
			}
			checkRunSums(t, fmt.Sprintf("team %s over %v", team, w), got["workflows"].([]postgres.WorkflowSums), events, teams, team, w)
		}
	}
	// A key declared later: the back-fill, in small chunks, gives every
	// stored run its first call's value.
	db.EnqueueTagBackfill = func(context.Context, pgx.Tx, string) error { return nil }
	db.TagBackfillChunk = 37
	if err := db.PutTags(ctx, p, []string{"env", "team"}); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for done := false; !done; steps++ {
		var err error
		if done, err = db.BackfillTags(ctx, p, time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if steps < 5 {
		t.Fatalf("the back-fill took %d steps of 37 calls: not chunked", steps)
	}
	checkRunTags(t, db, p, events, teams)
	// RebuildRollups sets every key on every run again.
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET tags = NULL WHERE project_id = $1`, p); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		t.Fatal(err)
	}
	checkRunTags(t, db, p, events, teams)
}

// checkRunTags checks every run's env and team against its first call's.
func checkRunTags(t *testing.T, db *postgres.DB, p string, events []event.Event, teams map[string]string) {
	t.Helper()
	ctx := context.Background()
	envs := map[string]string{}
	for trace, meta := range firstCalls(events) {
		envs[trace] = postgres.TagNone
		if strings.Contains(meta, `"env":"prod"`) {
			envs[trace] = "prod"
		}
	}
	rows, err := db.Pool.Query(ctx, `SELECT trace_id, tags FROM runs WHERE project_id = $1`, p)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var trace string
		var tags []string
		if err := rows.Scan(&trace, &tags); err != nil {
			t.Fatal(err)
		}
		if want := []string{"env=" + envs[trace], "team=" + teams[trace]}; !slices.Equal(tags, want) {
			t.Errorf("run %s: tags %q, want %q", trace, tags, want)
		}
		n++
	}
	if rows.Err() != nil || n != len(teams) {
		t.Fatalf("%d runs (%v), want %d", n, rows.Err(), len(teams))
	}
}

// checkRunSums compares the workflow rows' run count and cost with Go
// sums over the runs of team whose first call lies in w.
func checkRunSums(t *testing.T, when string, rows []postgres.WorkflowSums, events []event.Event, teams map[string]string, team string, w [2]time.Time) {
	t.Helper()
	first := map[string]time.Time{}
	cost := map[string]int64{}
	for _, e := range events {
		if f, ok := first[e.TraceID]; !ok || e.Timestamp.Before(f) {
			first[e.TraceID] = e.Timestamp
		}
		cost[e.TraceID] += e.CostNano
	}
	var wantRuns, wantCost, gotRuns, gotCost int64
	for trace, f := range first {
		if teams[trace] == team && !f.Before(w[0]) && f.Before(w[1]) {
			wantRuns, wantCost = wantRuns+1, wantCost+cost[trace]
		}
	}
	for _, r := range rows {
		gotRuns, gotCost = gotRuns+r.Runs, gotCost+r.CostNano
	}
	if gotRuns != wantRuns || gotCost != wantCost || wantRuns == 0 {
		t.Errorf("%s: %d runs costing %d, Go sums %d costing %d", when, gotRuns, gotCost, wantRuns, wantCost)
	}
}
