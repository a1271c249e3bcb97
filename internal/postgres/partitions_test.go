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

// callAt is call with its timestamp.
func callAt(project, id string, ts time.Time) event.Event {
	e := call(project, id, 10)
	e.Timestamp = ts
	return e
}

// partitionOf names the partition that holds a project's call.
func partitionOf(t *testing.T, db *postgres.DB, project, id string) string {
	t.Helper()
	var name string
	err := db.Pool.QueryRow(context.Background(), `SELECT tableoid::regclass::text FROM events WHERE project_id = $1 AND event_id = $2`,
		project, id).Scan(&name)
	if err != nil {
		t.Fatalf("partition of %s: %v", id, err)
	}
	return name
}

// storedCopies counts the stored rows of one event_id.
func storedCopies(t *testing.T, db *postgres.DB, project, id string) int {
	t.Helper()
	return countOf(t, db, `SELECT count(*) FROM events WHERE project_id = $1 AND event_id = $2`, project, id)
}

// countOf is the count a query of one count answers.
func countOf(t *testing.T, db *postgres.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCallsWithoutPartitionAreStoredThenMoved(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	past := time.Date(2019, 5, 10, 12, 0, 0, 0, time.UTC)
	future := time.Date(2099, 2, 3, 4, 0, 0, 0, time.UTC)
	res, err := db.Write(ctx, []event.Event{callAt(p, "past", past), callAt(p, "future", future), callAt(p, "now", time.Now())}, nil)
	if err != nil || res.Stored != 3 {
		t.Fatalf("calls without a partition: %+v %v", res, err)
	}
	if got := partitionOf(t, db, p, "past"); got != "events_default" {
		t.Fatalf("a back-filled call is in %s, want events_default", got)
	}
	if got := partitionOf(t, db, p, "now"); got != "events_p"+time.Now().UTC().Format("200601") {
		t.Fatalf("a current call is in %s", got)
	}
	created, err := db.EnsureEventPartitions(ctx, time.Now(), 2)
	if err != nil || created != 2 { // the months of past and future; now's and the next two exist
		t.Fatalf("created %d partitions (%v), want 2", created, err)
	}
	if got := partitionOf(t, db, p, "past"); got != "events_p201905" {
		t.Fatalf("the back-filled call is in %s after the job", got)
	}
	if got := partitionOf(t, db, p, "future"); got != "events_p209902" {
		t.Fatalf("the future call is in %s after the job", got)
	}
	if created, err := db.EnsureEventPartitions(ctx, time.Now(), 2); err != nil || created != 0 {
		t.Fatalf("a second run created %d (%v)", created, err)
	}
	parts, err := db.EventPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bounds := map[string]postgres.EventPartition{}
	for _, pt := range parts {
		bounds[pt.Name] = pt
	}
	if b := bounds["events_p201905"]; !b.From.Equal(time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC)) || !b.To.Equal(time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("bounds of events_p201905: %+v", b)
	}
	if b, ok := bounds["events_default"]; !ok || !b.From.IsZero() || !b.To.IsZero() {
		t.Fatalf("DEFAULT: %+v %v", b, ok)
	}
}

// monthsAround creates the partitions of May and June 2019, so that a
// call on either side of their boundary lands in a partition of its own.
func monthsAround(t *testing.T, db *postgres.DB) (may, june time.Time) {
	t.Helper()
	may, june = time.Date(2019, 5, 15, 0, 0, 0, 0, time.UTC), time.Date(2019, 6, 15, 0, 0, 0, 0, time.UTC)
	for _, m := range []time.Time{may, june} {
		if _, err := db.EnsureEventPartitions(context.Background(), m, 0); err != nil {
			t.Fatal(err)
		}
	}
	return may, june
}

func TestReplayInAnotherPartitionIsDuplicate(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	monthsAround(t, db)
	boundary := time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)
	res, err := db.Write(ctx, []event.Event{callAt(p, "e1", boundary.Add(-30*time.Minute)), callAt(p, "e2", boundary.Add(2*time.Hour))}, nil)
	if err != nil || res.Stored != 2 {
		t.Fatalf("originals: %+v %v", res, err)
	}
	if a, b := partitionOf(t, db, p, "e1"), partitionOf(t, db, p, "e2"); a != "events_p201905" || b != "events_p201906" {
		t.Fatalf("originals in %s and %s", a, b)
	}
	// Replays whose timestamps moved across the boundary, in a later batch.
	res, err = db.Write(ctx, []event.Event{callAt(p, "e1", boundary.Add(23*time.Hour)), callAt(p, "e2", boundary.Add(-20*time.Hour))}, nil)
	if err != nil || res.Stored != 0 || res.Duplicate != 2 {
		t.Fatalf("replays across the boundary: %+v %v", res, err)
	}
	// A replay that moved within its month, however far: the month's key.
	res, err = db.Write(ctx, []event.Event{callAt(p, "e1", boundary.AddDate(0, 0, -20)), callAt(p, "e2", boundary.AddDate(0, 0, 25))}, nil)
	if err != nil || res.Stored != 0 || res.Duplicate != 2 {
		t.Fatalf("replays within the month: %+v %v", res, err)
	}
	// Beyond the window and in another month: a new call (the stated limit).
	res, err = db.Write(ctx, []event.Event{callAt(p, "e1", boundary.Add(postgres.ReplayWindow+time.Hour))}, nil)
	if err != nil || res.Stored != 1 {
		t.Fatalf("a replay beyond the window: %+v %v", res, err)
	}
	for id, want := range map[string]int{"e1": 2, "e2": 1} {
		if n := storedCopies(t, db, p, id); n != want {
			t.Fatalf("%s stored %d times, want %d", id, n, want)
		}
	}
}

func TestReplayOfDefaultCallIntoPartitionIsDuplicate(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	// May 2019 has a partition, June not: the original lands in DEFAULT.
	if _, err := db.EnsureEventPartitions(ctx, time.Date(2019, 5, 15, 0, 0, 0, 0, time.UTC), 0); err != nil {
		t.Fatal(err)
	}
	boundary := time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)
	if res, err := db.Write(ctx, []event.Event{callAt(p, "e1", boundary.Add(time.Hour))}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("original: %+v %v", res, err)
	}
	if got := partitionOf(t, db, p, "e1"); got != "events_default" {
		t.Fatalf("original in %s", got)
	}
	if res, err := db.Write(ctx, []event.Event{callAt(p, "e1", boundary.Add(-time.Hour))}, nil); err != nil || res.Duplicate != 1 {
		t.Fatalf("replay into May: %+v %v", res, err)
	}
	if n := storedCopies(t, db, p, "e1"); n != 1 {
		t.Fatalf("stored %d copies", n)
	}
}

// Concurrent retries of the same calls, half stamped just before a month
// boundary and half just after, store each call once.
func TestConcurrentReplaysAcrossPartitionsStoreOnce(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	monthsAround(t, db)
	boundary := time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)
	const calls, retries = 40, 6
	var wg sync.WaitGroup
	errs := make(chan error, retries)
	var stored [retries]int64
	for r := range retries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offset := time.Duration(r+1) * time.Minute
			if r%2 == 0 {
				offset = -offset
			}
			batch := make([]event.Event, calls)
			for i := range batch {
				batch[i] = callAt(p, fmt.Sprintf("c%02d", i), boundary.Add(offset))
			}
			res, err := db.Write(ctx, batch, nil)
			stored[r] = res.Stored
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	for _, n := range stored {
		total += n
	}
	var rows, distinct int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT event_id) FROM events WHERE project_id = $1`, p).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != calls || distinct != calls || total != calls {
		t.Fatalf("%d rows of %d distinct calls, writes said %d stored; want %d each", rows, distinct, total, calls)
	}
}

// TestUpgradeAttachesTheOldTable takes a database back to before
// migration 0037 (events one table, with calls of 2019, now, three months
// ahead and 2099) and migrates it again: the old table becomes
// events_legacy with its key, the future calls move to their months or
// DEFAULT, every call is kept, and a replay of an old call is still a
// duplicate.
func TestUpgradeAttachesTheOldTable(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	now := time.Now().UTC()
	ahead := now.AddDate(0, 3, 0)
	old := []event.Event{callAt(p, "2019", time.Date(2019, 5, 10, 0, 0, 0, 0, time.UTC)), callAt(p, "now", now),
		callAt(p, "ahead", ahead), callAt(p, "2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))}
	if res, err := db.Write(ctx, old, nil); err != nil || res.Stored != 4 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE events_old (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
INSERT INTO events_old SELECT * FROM events;
DROP TABLE events;
DROP FUNCTION llmcost_events_partition(timestamptz);
DROP FUNCTION llmcost_replay_stored(uuid, text, timestamptz);
ALTER TABLE events_old RENAME TO events;
ALTER TABLE events ADD PRIMARY KEY (project_id, event_id);
ALTER TABLE events ADD FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX events_project_ts_idx ON events (project_id, ts DESC);
CREATE INDEX events_project_agent_ts_lat_idx ON events (project_id, agent_name, ts DESC) INCLUDE (latency_ms);
CREATE INDEX events_project_trace_idx ON events (project_id, trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX events_tx_brin ON events USING brin (tx) WITH (pages_per_range = 32, autosummarize = on);
DELETE FROM schema_migrations WHERE version = 37`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("migrate: %d %v", n, err)
	}
	want := map[string]string{"2019": "events_legacy", "now": "events_legacy", "ahead": "events_default", "2099": "events_default"}
	for id, part := range want {
		if got := partitionOf(t, db, p, id); got != part {
			t.Errorf("%s is in %s after the upgrade, want %s", id, got, part)
		}
	}
	var key bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'events_legacy_pkey' AND contype = 'p')`).Scan(&key); err != nil || !key {
		t.Fatalf("events_legacy kept no primary key (%v)", err)
	}
	if res, err := db.Write(ctx, []event.Event{callAt(p, "2019", time.Date(2019, 5, 11, 0, 0, 0, 0, time.UTC))}, nil); err != nil || res.Duplicate != 1 {
		t.Fatalf("a replay of an old call after the upgrade: %+v %v", res, err)
	}
	if _, err := db.EnsureEventPartitions(ctx, now, 2); err != nil {
		t.Fatal(err)
	}
	if got, want := partitionOf(t, db, p, "ahead"), "events_p"+ahead.Format("200601"); got != want {
		t.Fatalf("the call three months ahead is in %s after the job, want %s", got, want)
	}
}
