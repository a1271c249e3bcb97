package postgres_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// niceOf is the nice value of local process pid (/proc/pid/stat, field 19).
// niceAbove is a nice value by above this process's own, which the test's
// PostgreSQL server inherits (a test run under nice starts its server
// niced too), so a reniced backend differs from the others.
func niceAbove(t *testing.T, by int) int {
	t.Helper()
	own := niceOf(t, os.Getpid())
	if own+by > 19 {
		t.Fatalf("this test runs at nice %d: a backend cannot be reniced %d above it", own, by)
	}
	return own + by
}

func niceOf(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name may hold spaces: fields count from after its ")".
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openOneRead opens a migrated database with one read connection: every
// other backend of the database is then another pool's.
func openOneRead(t *testing.T) (*postgres.DB, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	db, err := postgres.Open(context.Background(), url, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, url
}

// The work pool's server processes (ingest's) run at the nice
// value asked for; the reads' keep theirs; ingest goes through the work
// pool.
func TestWorkPoolRunsAtLowerPriority(t *testing.T) {
	ctx := context.Background()
	db, url := openOneRead(t)
	want := niceAbove(t, 7)
	var reniced []error
	if err := db.OpenWork(ctx, url, 2, want, func(err error) { reniced = append(reniced, err) }); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, db)
	if _, err := db.Write(ctx, []event.Event{call(p, "e1", 10)}, nil); err != nil {
		t.Fatal(err)
	}
	if len(reniced) == 0 || reniced[0] != nil {
		t.Fatalf("the work pool's connection was not reniced: %v", reniced)
	}
	var readPID int
	if err := db.Pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&readPID); err != nil {
		t.Fatal(err)
	}
	var workPIDs []int
	if err := db.Pool.QueryRow(ctx, `SELECT array_agg(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&workPIDs); err != nil {
		t.Fatal(err)
	}
	if len(workPIDs) == 0 {
		t.Fatal("no work connection open after a write")
	}
	base := niceOf(t, readPID)
	for _, pid := range workPIDs {
		if niceOf(t, pid) != want {
			t.Fatalf("work backend %d runs at nice %d, want %d (the reads' at %d)", pid, niceOf(t, pid), want, base)
		}
	}
	if base == want {
		t.Fatal("the reads' backend was reniced too")
	}
}

// The mergers' pool runs at its own nice value, and the merge statements
// run on it: the reads' backend keeps its priority.
func TestMergePoolRunsTheMergersAtItsPriority(t *testing.T) {
	ctx := context.Background()
	db, url := openOneRead(t)
	want := niceAbove(t, 5)
	var reniced []error
	if err := db.OpenMerge(ctx, url, 1, want, func(err error) { reniced = append(reniced, err) }); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, db)
	if _, err := db.Write(ctx, []event.Event{call(p, "e1", 10)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if len(reniced) != 1 || reniced[0] != nil {
		t.Fatalf("the merge pool's connection: %v, want one reniced without error", reniced)
	}
	var readPID int
	var mergePIDs []int
	if err := db.Pool.QueryRow(ctx, `SELECT pg_backend_pid(), array_agg(pid) FILTER (WHERE pid <> pg_backend_pid())
		FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`).Scan(&readPID, &mergePIDs); err != nil {
		t.Fatal(err)
	}
	if len(mergePIDs) != 1 {
		t.Fatalf("backends besides the read's: %v, want the merge pool's one", mergePIDs)
	}
	if n := niceOf(t, mergePIDs[0]); n != want {
		t.Fatalf("merge backend runs at nice %d, want %d", n, want)
	}
	if niceOf(t, readPID) == want {
		t.Fatal("the reads' backend was reniced too")
	}
	// The merge went through: nothing is left to merge.
	lags, err := db.MergeLags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := lags.Lags[backlog.Rollups].Backlog; n != 0 {
		t.Fatalf("rollup backlog %d after the merge, want 0", n)
	}
}
