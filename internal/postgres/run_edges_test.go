package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/postgres"
)

// TestStepAndToolRowsEqualTheRunRows sends runs spread over four days and
// checks the step and tool reports (whole days from the day rows, the runs
// of the partial first and last days from their per-run rows, read as one
// set) against one plain grouping of every run of the window's per-run
// rows: windows starting and ending mid-day, inside one day and on
// midnights, over all agents and one, with and without a workflow. The
// per-run rows equal a rebuild from the events (TestRunsEqualARebuild).
func TestStepAndToolRowsEqualTheRunRows(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := writeFourDaysOfRuns(t, db, p, rand.New(rand.NewPCG(15, 2)))
	day := 24 * time.Hour
	windows := [][2]time.Time{
		{t0.Add(-time.Hour), t0.Add(4 * day)},                 // partial first and last days
		{t0.Add(20 * time.Hour), t0.Add(3*day + time.Hour)},   // one edge run set on each side
		{t0.Add(2 * time.Hour), t0.Add(9 * time.Hour)},        // inside one day: edge runs only
		{t0.Add(-5 * time.Hour), t0.Add(3*day - 5*time.Hour)}, // midnight to midnight: days only
	}
	var checked int
	for _, w := range windows {
		for _, agent := range []string{"", "a1"} {
			for _, wf := range []string{"", "w1"} {
				q := postgres.RunQuery{ProjectID: p, Start: w[0], End: w[1], AgentName: agent, Workflow: wf,
					HasWorkflow: wf != ""}
				for _, kind := range []struct {
					table, name string
					read        func(context.Context, postgres.RunQuery) ([]postgres.GroupSums, error)
					byWorkflow  bool
				}{{"run_steps", "step_name", db.StepRows, true}, {"run_tools", "tool_name", db.ToolRows, false}} {
					got, err := kind.read(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					want := runRowSums(t, db, q, kind.table, kind.name, kind.byWorkflow)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s from %s to %s, agent %q, workflow %q:\n got %+v\nwant %+v", kind.table, w[0], w[1],
							agent, wf, got, want)
					}
					checked += len(want)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d rows compared", checked)
	}
}

// runRowSums groups the per-run rows of every run of q's window in one
// statement, ordered as the reports are.
func runRowSums(t *testing.T, db *postgres.DB, q postgres.RunQuery, table, name string, byWorkflow bool) []postgres.GroupSums {
	t.Helper()
	wf, group := "NULL::text", "2"
	if byWorkflow {
		wf, group = "NULLIF(coalesce(r.workflow, ''), '')", "1, 2"
	}
	rows, err := db.Pool.Query(context.Background(), `SELECT `+wf+`, s.`+name+`, sum(s.cost_nano)::bigint,
  sum(s.calls)::bigint, count(*), sum(s.tokens)::bigint, sum(s.latency_sum)::bigint, sum(s.latency_count)::bigint,
  sum(s.success_calls)::bigint
FROM runs r JOIN `+table+` s USING (project_id, trace_id)
WHERE r.project_id = $1 AND r.first_ts >= $2 AND r.first_ts < $3 AND ($4 = '' OR r.agent_name = $4)
  AND (NOT $5 OR coalesce(r.workflow, '') = $6)
GROUP BY `+group+` ORDER BY 3 DESC, coalesce(`+wf+`, '') COLLATE "C", s.`+name+` COLLATE "C"`,
		q.ProjectID, q.Start, q.End, q.AgentName, q.HasWorkflow, q.Workflow)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (postgres.GroupSums, error) {
		var g postgres.GroupSums
		return g, r.Scan(&g.Workflow, &g.Name, &g.CostNano, &g.Calls, &g.Runs, &g.Tokens, &g.LatencySum,
			&g.LatencyCount, &g.Successes)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeFourDaysOfRuns writes eight rounds of random traced runs, eleven
// hours apart from 05:00 UTC on 1 June 2026 (so they span four UTC days),
// and returns that start.
func writeFourDaysOfRuns(t *testing.T, db *postgres.DB, p string, rng *rand.Rand) time.Time {
	t.Helper()
	t0 := time.Date(2026, 6, 1, 5, 0, 0, 0, time.UTC)
	for round := range 8 {
		calls := randomRunCalls(rng, p, 60, t0.Add(time.Duration(round)*11*time.Hour))
		for i := range calls {
			calls[i].EventID += "-" + calls[i].Timestamp.Format(time.RFC3339)
			calls[i].TraceID += "-" + calls[i].Timestamp.Format("2006-01-02T15")
		}
		if _, err := db.Write(context.Background(), calls, nil); err != nil {
			t.Fatal(err)
		}
	}
	return t0
}
