package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// partitionJobInProgress runs the partition job's creation of month in a
// transaction it leaves open for the test to commit (rolled back at the
// test's end otherwise).
func partitionJobInProgress(t *testing.T, db *postgres.DB, month time.Time) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	job, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = job.Rollback(ctx) })
	var created bool
	if err := job.QueryRow(ctx, `SELECT llmcost_events_partition($1)`, month).Scan(&created); err != nil || !created {
		t.Fatalf("partition of %s: created %v, %v", month.Format("2006-01"), created, err)
	}
	return job
}

// waitForLockOn waits (10 s at most) until some transaction waits for a
// lock on relation.
func waitForLockOn(t *testing.T, db *postgres.DB, relation string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting int
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = $1::regclass`,
			relation).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no transaction waited for a lock on %s", relation)
		}
	}
}

// A batch whose call routes to DEFAULT while the partition job attaches
// that call's month: the insert, which chose DEFAULT by the partitions it
// saw when it started, waits for the job and then fails DEFAULT's new
// partition constraint. The write goes again and stores the call once, in
// its month, instead of answering an internal error.
func TestWriteRacingAPartitionAttachIsStoredOnce(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	month := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	job := partitionJobInProgress(t, db, month)
	type result struct {
		stored int64
		err    error
	}
	done := make(chan result, 1)
	go func() {
		res, err := db.Write(ctx, []event.Event{callAt(p, "raced", month.Add(9*24*time.Hour))}, nil)
		done <- result{res.Stored, err}
	}()
	// The insert has routed to DEFAULT and waits for the job's lock on it.
	waitForLockOn(t, db, "events_default")
	if err := job.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.stored != 1 {
		t.Fatalf("write racing the attach: stored %d, %v", r.stored, r.err)
	}
	if got := partitionOf(t, db, p, "raced"); got != "events_p202501" {
		t.Fatalf("the call is in %s, want its month's partition", got)
	}
	if n := storedCopies(t, db, p, "raced"); n != 1 {
		t.Fatalf("%d copies stored", n)
	}
}
