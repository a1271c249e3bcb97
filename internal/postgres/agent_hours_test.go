package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
)

// TestUpgradeAddsAgentHours takes a database back to before migration
// 0045 (no per-agent hourly rows of billing, user, session, workflow and
// tool, as the merger wrote them before), and another back to before 0049
// (no rows by tool and model together), each holding merged calls, calls
// not merged yet, a project whose oldest rollups expired and a deleted
// one, migrates it again, and checks every project's rollups against a Go
// sum: the merged calls' new rows at once, the tail's once merged, none
// before a project's rollup cutoff, none for the deleted project.
func TestUpgradeAddsAgentHours(t *testing.T) {
	for _, c := range []struct {
		version int
		added   []string // the rows the migration adds: FROM and WHERE
	}{
		{45, []string{`rollup_hour WHERE agent_name <> '' AND dim NOT IN ('model', 'tool_model')`}},
		{49, []string{`rollup_hour WHERE dim = 'tool_model'`, `rollup_day WHERE dim = 'tool_model'`}},
	} {
		t.Run(fmt.Sprint(c.version), func(t *testing.T) { upgradeAdds(t, c.version, c.added) })
	}
}

func upgradeAdds(t *testing.T, version int, added []string) {
	db := openDB(t)
	ctx := context.Background()
	p, expired, gone := newProject(t, db), newProject(t, db), newProject(t, db)
	rng := rand.New(rand.NewPCG(uint64(version), 45))
	t0 := time.Date(2026, 5, 30, 22, 0, 0, 0, time.UTC)
	kept := map[string]map[string]event.Event{}
	write := func(project string, evs []event.Event) {
		t.Helper()
		if _, err := db.Write(ctx, evs, nil); err != nil {
			t.Fatal(err)
		}
		if kept[project] == nil {
			kept[project] = map[string]event.Event{}
		}
		keepFirst(kept[project], evs)
	}
	for _, project := range []string{p, expired, gone} {
		write(project, randomEvents(rng, project, 200, t0))
	}
	merge(t, db)
	merged := map[string]event.Event{}
	for id, e := range kept[p] {
		merged[id] = e
	}
	tail := randomEvents(rng, p, 100, t0)
	for i := range tail {
		tail[i].EventID = "tail-" + tail[i].EventID
	}
	write(p, tail)

	cutoff := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, sql := range []string{`UPDATE projects SET rollup_expired_before = $2 WHERE id = $1`,
		`DELETE FROM rollup_hour WHERE project_id = $1 AND bucket < $2`,
		`DELETE FROM rollup_day WHERE project_id = $1 AND bucket < $2`} {
		if _, err := db.Pool.Exec(ctx, sql, expired, cutoff); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET deleted_at = now() WHERE id = $1`, gone); err != nil {
		t.Fatal(err)
	}
	for _, rows := range added {
		if tag, err := db.Pool.Exec(ctx, `DELETE FROM `+rows); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("removing the rows of %s: %v, %v", rows, tag, err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, version); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("migrate: %d %v", n, err)
	}

	compareRollups(t, "merged calls after the migration", readRollups(t, db, p), expectRollups(merged))
	merge(t, db)
	compareRollups(t, "every call once the tail is merged", readRollups(t, db, p), expectRollups(kept[p]))

	// The project whose rollups expired before the cutoff: its hours from
	// the cutoff on, per agent too, and none before it.
	hours := func(m map[rollupKey]analytics.Sums) map[rollupKey]analytics.Sums {
		out := map[rollupKey]analytics.Sums{}
		for k, v := range m {
			if k.Grain == "hour" {
				if k.Bucket < cutoff.Format(time.RFC3339) {
					t.Errorf("expired project: hourly row %+v before the cutoff", k)
				}
				out[k] = v
			}
		}
		return out
	}
	want := map[rollupKey]analytics.Sums{}
	for k, v := range expectRollups(kept[expired]) {
		if k.Grain == "hour" && k.Bucket >= cutoff.Format(time.RFC3339) {
			want[k] = v
		}
	}
	compareRollups(t, "the expired project's hours", hours(readRollups(t, db, expired)), want)
	for _, rows := range added {
		if n := countOf(t, db, `SELECT count(*) FROM `+rows+` AND project_id = $1`, gone); n != 0 {
			t.Fatalf("the deleted project got %d rows of %s", n, rows)
		}
	}
}
