package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestUpgradeFillsTheRunTagRollups takes a database with tagged runs back
// to before migration 0040 (run rollups without a tag column, no row per
// tag) and migrates it again: the rows the migration fills from the runs
// equal those the refreshes kept.
func TestUpgradeFillsTheRunTagRollups(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 40))
	t0 := time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC)
	for range 3 {
		if _, err := db.Write(ctx, randomRunCalls(rng, p, 80, t0), nil); err != nil {
			t.Fatal(err)
		}
		mergeRuns(t, db)
	}
	want := readRunTables(t, db, p)
	if len(want["run_step_day"]) == 0 || len(want["run_tool_all_day"]) == 0 {
		t.Fatalf("too thin: %d step rows, %d tool rows", len(want["run_step_day"]), len(want["run_tool_all_day"]))
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM run_day WHERE tag <> '';
DELETE FROM run_step_day WHERE tag <> ''; DELETE FROM run_tool_day WHERE tag <> '';
DELETE FROM run_tool_all_day WHERE tag <> '';
ALTER TABLE run_day DROP CONSTRAINT run_day_pkey, DROP COLUMN tag, ADD PRIMARY KEY (project_id, agent_name, bucket, workflow);
ALTER TABLE run_step_day DROP CONSTRAINT run_step_day_pkey, DROP COLUMN tag,
  ADD PRIMARY KEY (project_id, agent_name, bucket, workflow, name);
ALTER TABLE run_tool_day DROP CONSTRAINT run_tool_day_pkey, DROP COLUMN tag,
  ADD PRIMARY KEY (project_id, agent_name, bucket, workflow, name);
ALTER TABLE run_tool_all_day DROP CONSTRAINT run_tool_all_day_pkey, DROP COLUMN tag,
  ADD PRIMARY KEY (project_id, agent_name, bucket, name);
DELETE FROM schema_migrations WHERE version = 40`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	if got := readRunTables(t, db, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("run rollups after the upgrade differ from the maintained ones\n got %v\nwant %v", got, want)
	}
}
