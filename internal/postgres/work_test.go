package postgres_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// niceOf is the nice value of local process pid (/proc/pid/stat, field 19).
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

// The work pool's server processes (ingest's) run at the nice
// value asked for; the reads' keep theirs; ingest goes through the work
// pool.
func TestWorkPoolRunsAtLowerPriority(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	// One read connection: every other backend of the database is the
	// work pool's.
	db, err := postgres.Open(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var reniced []error
	if err := db.OpenWork(ctx, url, 2, 7, func(err error) { reniced = append(reniced, err) }); err != nil {
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
		if niceOf(t, pid) != 7 {
			t.Fatalf("work backend %d runs at nice %d, want 7 (the reads' at %d)", pid, niceOf(t, pid), base)
		}
	}
	if base == 7 {
		t.Fatal("the reads' backend was reniced too")
	}
}
