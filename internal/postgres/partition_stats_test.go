package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestGrownPartitionsAreAnalyzed: calls landing in a partition make it due
// for ANALYZE once enough of it changed; analyzing clears the count, and a
// partition that did not change is left alone.
func TestGrownPartitionsAreAnalyzed(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	const n = 400
	past := time.Date(2018, 3, 1, 0, 0, 0, 0, time.UTC) // no partition: DEFAULT
	calls := make([]event.Event, n)
	for i := range calls {
		calls[i] = callAt(p, fmt.Sprintf("grown-%d", i), past.Add(time.Duration(i)*time.Minute))
	}
	if res, err := db.Write(ctx, calls, nil); err != nil || res.Stored != n {
		t.Fatalf("write: %+v %v", res, err)
	}
	analyzes := func() (count, changed int64) {
		t.Helper()
		err := db.Pool.QueryRow(ctx, `SELECT analyze_count, n_mod_since_analyze FROM pg_stat_user_tables
			WHERE relid = 'events_default'::regclass`).Scan(&count, &changed)
		if err != nil {
			t.Fatal(err)
		}
		return count, changed
	}
	before, _ := analyzes()
	// The writer's counts reach the statistics when its connection idles
	// (within a second or so): poll.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := db.AnalyzeGrownPartitions(ctx, n/2); err != nil {
			t.Fatal(err)
		}
		if after, changed := analyzes(); after > before {
			if changed >= n {
				t.Fatalf("events_default analyzed but %d changes still counted", changed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events_default (%d calls written) never analyzed", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Nothing changed since: a bound above what others may write meanwhile
	// finds nothing to do.
	if got, err := db.AnalyzeGrownPartitions(ctx, 1_000_000); err != nil || got != 0 {
		t.Fatalf("unchanged partitions analyzed again: %d %v", got, err)
	}
}
