package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// TestToolRowsOverAllWorkflows sends runs spread over four days and checks
// that the tool report read from the rows over every workflow
// (run_tool_all_day) equals the one summed from the per-workflow rows, for
// windows with and without whole days, over all agents and one.
func TestToolRowsOverAllWorkflows(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := writeFourDaysOfRuns(t, db, p, rand.New(rand.NewPCG(14, 1)))
	mergeRuns(t, db)
	var days int
	if err := db.Pool.QueryRow(ctx, `SELECT count(DISTINCT bucket) FROM run_tool_all_day WHERE project_id = $1
  AND agent_name = ''`, p).Scan(&days); err != nil || days < 3 {
		t.Fatalf("tool rows on %d days (%v)", days, err)
	}
	end := t0.Add(4 * 24 * time.Hour)
	for _, start := range []time.Time{t0.Add(-time.Hour), t0.Add(20 * time.Hour), t0.Add(50 * time.Hour)} {
		for _, agent := range []string{"", "a1"} {
			q := postgres.RunQuery{ProjectID: p, Start: start, End: end, AgentName: agent}
			got, err := db.ToolRows(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.ToolRowsPerWorkflow(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("from %s, agent %q:\n got %+v\nwant %+v", start, agent, got, want)
			}
		}
	}
}
