package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestReadRacingAPartitionMoveSeesEveryCall: a read of events that
// starts while the partition job moves a month's calls out of DEFAULT
// into the month's new partition counts them: it waits for the job and
// then reads them where they are. Planned beside the job instead (the
// new partition not yet there), it read DEFAULT after the move and
// counted none (migration 0047).
func TestReadRacingAPartitionMoveSeesEveryCall(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	month := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.Write(ctx, []event.Event{callAt(p, "held", month.Add(9*24*time.Hour))}, nil); err != nil {
		t.Fatal(err)
	}
	if got := partitionOf(t, db, p, "held"); got != "events_default" {
		t.Fatalf("the call is in %s before the job, want events_default", got)
	}
	job := partitionJobInProgress(t, db, month)
	type count struct {
		n   int
		err error
	}
	done := make(chan count, 1)
	go func() {
		var c count
		c.err = db.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1`, p).Scan(&c.n)
		done <- c
	}()
	// The read waits for the job's lock on events, to plan after the move.
	waitForLockOn(t, db, "events")
	if err := job.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if c := <-done; c.err != nil || c.n != 1 {
		t.Fatalf("the read racing the move counted %d calls (%v), want 1", c.n, c.err)
	}
	if got := partitionOf(t, db, p, "held"); got != "events_p202502" {
		t.Fatalf("the call is in %s after the job, want events_p202502", got)
	}
}
