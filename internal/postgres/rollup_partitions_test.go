package postgres_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRollupDayPartitions: migration 0025's partitions hold what their
// names say once the merger has written the day rows: the all-agents agent
// and model rows together, the other all-agents rows, the per-agent rows;
// each holds some. (TestRollupsEqualTheEvents checks their sums.)
func TestRollupDayPartitions(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(25, 25))
	if _, err := db.Write(ctx, randomEvents(rng, p, 200, time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)), nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	rows, err := db.Pool.Query(ctx, `SELECT tableoid::regclass::text, dim, agent_name = '', count(*)
		FROM rollup_day WHERE project_id = $1 GROUP BY 1, 2, 3`, p)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	per := map[string]int64{}
	for rows.Next() {
		var part, dim string
		var all bool
		var n int64
		if err := rows.Scan(&part, &dim, &all, &n); err != nil {
			t.Fatal(err)
		}
		want := "rollup_day_per_agent"
		if all && (dim == "agent" || dim == "model") {
			want = "rollup_day_all_agent_model"
		} else if all {
			want = "rollup_day_all_other"
		}
		if part != want {
			t.Errorf("%d %s rows (all agents %v) in %s, want %s", n, dim, all, part, want)
		}
		per[part] += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"rollup_day_all_agent_model", "rollup_day_all_other", "rollup_day_per_agent"} {
		if per[part] == 0 {
			t.Errorf("no rows in %s: %v", part, per)
		}
	}
}
