package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// monthsAgo is the middle of the UTC month n months before now's.
func monthsAgo(n int) time.Time {
	now := time.Now().UTC()
	return time.Date(now.Year(), now.Month(), 15, 12, 0, 0, 0, time.UTC).AddDate(0, -n, 0)
}

// defaultCalls counts the calls DEFAULT holds.
func defaultCalls(t *testing.T, db *postgres.DB) int {
	t.Helper()
	return countOf(t, db, `SELECT count(*) FROM events_default`)
}

// A back-fill of recent months lands in its months, made at ingest
// before its first calls are stored; a call from further back than
// the months ingest makes still goes to DEFAULT, for the job.
func TestBackfillMonthIsMadeAtIngest(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	recent, old := monthsAgo(3), monthsAgo(14)
	res, err := db.Write(ctx, []event.Event{callAt(p, "recent", recent), callAt(p, "old", old), callAt(p, "now", time.Now())}, nil)
	if err != nil || res.Stored != 3 {
		t.Fatalf("write: %+v %v", res, err)
	}
	if got, want := partitionOf(t, db, p, "recent"), "events_p"+recent.Format("200601"); got != want {
		t.Fatalf("a call of three months ago is in %s, want %s", got, want)
	}
	if got := partitionOf(t, db, p, "old"); got != "events_default" {
		t.Fatalf("a call of 14 months ago is in %s, want events_default", got)
	}
	// The next batch of the same month finds it made and adds no other.
	before, err := db.EventPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := db.Write(ctx, []event.Event{callAt(p, "recent2", recent.Add(time.Hour))}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("second write: %+v %v", res, err)
	}
	after, err := db.EventPartitions(ctx)
	if err != nil || len(after) != len(before) {
		t.Fatalf("partitions %d after the second batch, %d before (%v)", len(after), len(before), err)
	}
	if n := defaultCalls(t, db); n != 1 {
		t.Fatalf("DEFAULT holds %d calls, want 1 (the old one)", n)
	}
}

// A month DEFAULT already holds calls of is left to the job, which moves
// them: ingest stores the month's next calls in DEFAULT beside them, and
// makes no partition that would leave them behind.
func TestIngestLeavesAHeldMonthToTheJob(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	m := monthsAgo(5)
	if res, err := db.Write(ctx, []event.Event{callAt(p, "first", m)}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("first write: %+v %v", res, err)
	}
	// The month's call back in DEFAULT and no partition for it, as an
	// instance without this code (or an attempt that failed) leaves it.
	name := "events_p" + m.Format("200601")
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE events DETACH PARTITION `+name+`;
INSERT INTO events_default SELECT * FROM `+name+`; DROP TABLE `+name); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, db) // an instance that has not seen the month made
	if res, err := fresh.Write(ctx, []event.Event{callAt(p, "second", m.Add(time.Hour))}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("second write: %+v %v", res, err)
	}
	for _, id := range []string{"first", "second"} {
		if got := partitionOf(t, db, p, id); got != "events_default" {
			t.Fatalf("%s is in %s, want events_default beside the held call", id, got)
		}
	}
	if _, err := db.EnsureEventPartitions(ctx, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"first", "second"} {
		if got := partitionOf(t, db, p, id); got != name {
			t.Fatalf("%s is in %s after the job, want %s", id, got, name)
		}
	}
}

// reopen is a second instance over db's database.
func reopen(t *testing.T, db *postgres.DB) *postgres.DB {
	t.Helper()
	other, err := postgres.Open(context.Background(), db.Pool.Config().ConnString(), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	return other
}

// Instances back-filling the same new month at once each store every call
// of theirs once, in the one partition made for it.
func TestConcurrentBackfillsMakeTheMonthOnce(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	m := monthsAgo(2)
	instances := []*postgres.DB{db, reopen(t, db), reopen(t, db)}
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for w := range 6 {
		wg.Go(func() {
			inst := instances[w%len(instances)]
			var batch []event.Event
			for i := range 50 {
				batch = append(batch, callAt(p, fmt.Sprintf("w%d-%d", w, i), m.Add(time.Duration(i)*time.Minute)))
			}
			res, err := inst.Write(ctx, batch, nil)
			if err == nil && res.Stored != 50 {
				err = fmt.Errorf("writer %d stored %d of 50", w, res.Stored)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := countOf(t, db, `SELECT count(*) FROM events_p`+m.Format("200601")+` WHERE project_id = $1`, p); n != 300 {
		t.Fatalf("the month's partition holds %d calls, want 300", n)
	}
	if n := defaultCalls(t, db); n != 0 {
		t.Fatalf("DEFAULT holds %d calls, want 0", n)
	}
}
