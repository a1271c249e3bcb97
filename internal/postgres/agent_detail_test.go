package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestUpgradeFillsRunStepFacts takes a database with runs back to before
// migration 0021 (and 0043) and migrates it again: the step rows' agent,
// first call, tool calls and models filled by its UPDATE, and the step and
// tool rows' run workflow (and the tool rows' agent and first call) filled
// by 0043's, must equal those the run refresh computes in Go
// (internal/runs), models in byte order.
func TestUpgradeFillsRunStepFacts(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(21, 21))
	calls := randomRunCalls(rng, p, 300, time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC))
	for i := range calls {
		// Byte order puts "Zeta" before "alpha"; a linguistic one does not.
		calls[i].Model = []string{"m1", "Zeta", "alpha"}[rng.IntN(3)]
	}
	if _, err := db.Write(ctx, calls, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.FreshRuns(ctx, p); err != nil { // runs are refreshed after ingest
		t.Fatal(err)
	}
	tables := readRunTables(t, db, p)
	want, wantTools := tables["run_steps"], tables["run_tools"]
	if len(wantTools) == 0 || !strings.Contains(strings.Join(wantTools, "\n"), ",w1)") {
		t.Fatalf("no tool row with a workflow, the test proves nothing:\n%s", strings.Join(wantTools, "\n"))
	}
	if !strings.Contains(strings.Join(want, "\n"), `{Zeta,alpha}`) {
		t.Fatalf("no step used both models, the test proves nothing:\n%s", strings.Join(want, "\n"))
	}
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE run_steps DROP COLUMN agent_name, DROP COLUMN first_ts,
  DROP COLUMN tool_calls, DROP COLUMN models, DROP COLUMN workflow;
ALTER TABLE run_tools DROP COLUMN agent_name, DROP COLUMN first_ts, DROP COLUMN workflow;
ALTER TABLE events RENAME TO events_partitioned;
ALTER INDEX events_project_agent_ts_lat_idx RENAME TO events_partitioned_lat_idx;
CREATE TABLE events AS SELECT * FROM events_partitioned;
CREATE INDEX events_project_agent_ts_idx ON events (project_id, agent_name, ts DESC);
DELETE FROM schema_migrations WHERE version IN (21, 43)`); err != nil {
		t.Fatal(err)
	}
	// 0021 runs on an events table as it was then (unpartitioned: 0037).
	if n, err := db.Migrate(ctx); err != nil || n != 2 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	if _, err := db.Pool.Exec(ctx, `DROP TABLE events; ALTER TABLE events_partitioned RENAME TO events;
ALTER INDEX events_partitioned_lat_idx RENAME TO events_project_agent_ts_lat_idx`); err != nil {
		t.Fatal(err)
	}
	tables = readRunTables(t, db, p)
	if got := tables["run_steps"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("run_steps after the upgrade\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := tables["run_tools"]; !reflect.DeepEqual(got, wantTools) {
		t.Fatalf("run_tools after the upgrade\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(wantTools, "\n"))
	}
}
