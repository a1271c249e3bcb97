package postgres_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/llmcost/llmcost/internal/postgres"
)

// TestUpgradeFillsTheRunTagRollups takes a database with tagged runs back
// to before migration 0040 (run rollups without a tag column, no row per
// tag, not partitioned) and migrates it again: the rows 0040 fills from
// the runs, which 0041 moves into partitions by tag, equal those the
// refreshes kept.
func TestUpgradeFillsTheRunTagRollups(t *testing.T) {
	db, p := taggedRunsProject(t, 40)
	ctx := context.Background()
	want := readRunTables(t, db, p)
	if len(want["run_step_day"]) == 0 || len(want["run_tool_all_day"]) == 0 {
		t.Fatalf("too thin: %d step rows, %d tool rows", len(want["run_step_day"]), len(want["run_tool_all_day"]))
	}
	// The tables as 0011 and 0014 made them: not partitioned (0041), no
	// tag column (0040), only the rows over every run.
	for _, tb := range []struct{ name, key, index string }{
		{"run_day", "project_id, agent_name, bucket, workflow", "run_day_key_idx ON run_day (project_id, bucket, workflow)"},
		{"run_step_day", "project_id, agent_name, bucket, workflow, name",
			"run_step_day_key_idx ON run_step_day (project_id, bucket, workflow)"},
		{"run_tool_day", "project_id, agent_name, bucket, workflow, name",
			"run_tool_day_key_idx ON run_tool_day (project_id, bucket, workflow)"},
		{"run_tool_all_day", "project_id, agent_name, bucket, name",
			"run_tool_all_day_project_bucket_idx ON run_tool_all_day (project_id, bucket)"},
	} {
		if _, err := db.Pool.Exec(ctx, `CREATE TABLE old (LIKE `+tb.name+` INCLUDING DEFAULTS);
INSERT INTO old SELECT * FROM `+tb.name+` WHERE tag = '';
DROP TABLE `+tb.name+`;
ALTER TABLE old RENAME TO `+tb.name+`;
ALTER TABLE `+tb.name+` DROP COLUMN tag, ADD PRIMARY KEY (`+tb.key+`),
  ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
CREATE INDEX `+tb.index); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version IN (40, 41)`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Migrate(ctx); err != nil || n != 2 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	var parts int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_partitioned_table pt
JOIN pg_inherits i ON i.inhparent = pt.partrelid
WHERE pt.partrelid::regclass::text IN ('run_day', 'run_step_day', 'run_tool_day', 'run_tool_all_day')`).Scan(&parts); err != nil || parts != 8 {
		t.Fatalf("partitions of the run rollups after the upgrade: %d, want 8 (%v)", parts, err)
	}
	if got := readRunTables(t, db, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("run rollups after the upgrade differ from the maintained ones\n got %v\nwant %v", got, want)
	}
}

// TestCallRollupsBesideRunsEqualAFullRebuild: the bulk loader's pair,
// RebuildCallRollups and RebuildRuns run at the same time, leaves the
// runs (their tags included), every run rollup and the call rollups as
// RebuildRollups then RebuildRuns does, although RebuildCallRollups sets
// no run's tags: RebuildRuns computes them. The runs' tags, the rows per
// value and the daily call rollups are wiped first, so a pair that left
// them to the other would not restore them.
func TestCallRollupsBesideRunsEqualAFullRebuild(t *testing.T) {
	db, p := taggedRunsProject(t, 41)
	ctx := context.Background()
	if err := db.RebuildRollups(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildRuns(ctx, p); err != nil {
		t.Fatal(err)
	}
	want, wantCalls := readRunTables(t, db, p), readRollups(t, db, p)
	var tagged int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM run_day WHERE project_id = $1 AND tag <> ''`, p).Scan(&tagged); err != nil || tagged == 0 {
		t.Fatalf("no run_day rows per value to compare (%v)", err)
	}
	for _, q := range []string{`UPDATE runs SET tags = '{}' WHERE project_id = $1`,
		`DELETE FROM run_day WHERE project_id = $1 AND tag <> ''`, `DELETE FROM rollup_day WHERE project_id = $1`} {
		if _, err := db.Pool.Exec(ctx, q, p); err != nil {
			t.Fatal(err)
		}
	}
	// At the same time, as the bench's bulk loader runs them.
	var g errgroup.Group
	g.Go(func() error { return db.RebuildCallRollups(ctx, p) })
	g.Go(func() error { return db.RebuildRuns(ctx, p) })
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := readRunTables(t, db, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("after RebuildCallRollups beside RebuildRuns\n got %v\nwant %v", got, want)
	}
	if got := readRollups(t, db, p); !reflect.DeepEqual(got, wantCalls) {
		t.Fatalf("call rollups after RebuildCallRollups beside RebuildRuns\n got %v\nwant %v", got, wantCalls)
	}
}

// taggedRunsProject is a project declaring team with three batches of
// randomRunCalls (seeded by seed) written and their runs merged.
func taggedRunsProject(t *testing.T, seed uint64) (*postgres.DB, string) {
	t.Helper()
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	t0 := time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC)
	for range 3 {
		if _, err := db.Write(ctx, randomRunCalls(rng, p, 80, t0), nil); err != nil {
			t.Fatal(err)
		}
		mergeRuns(t, db)
	}
	return db, p
}
