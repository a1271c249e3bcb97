package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// SummarizeTail summarizes the BRIN ranges on tx that calls filled, in
// every partition of events (the index on the partitioned table is not
// itself a BRIN index one can summarize): a second call then finds none
// left to summarize.
func TestSummarizeTailSummarizesEveryPartition(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	// Enough calls to fill whole ranges (32 pages each) in two partitions:
	// this month's and DEFAULT (a month with no partition).
	var calls []event.Event
	for i := range 6000 {
		ts := time.Now().Add(-time.Minute)
		if i%2 == 1 {
			ts = time.Date(2019, 5, 10, 12, 0, 0, 0, time.UTC)
		}
		calls = append(calls, callAt(p, fmt.Sprintf("c%d", i), ts))
	}
	for i := 0; i < len(calls); i += 1000 {
		if _, err := db.Write(ctx, calls[i:i+1000], nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SummarizeTail(ctx, analytics.Span{}); err != nil {
		t.Fatalf("SummarizeTail: %v", err)
	}
	if left := unsummarized(t, db, ""); left != 0 {
		t.Fatalf("%d ranges left unsummarized after SummarizeTail", left)
	}
}

// unsummarized summarizes the new ranges of the partition's BRIN index
// named (every partition's when ""), and answers how many there were.
func unsummarized(t *testing.T, db *postgres.DB, index string) int64 {
	t.Helper()
	var n int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(brin_summarize_new_values(i.inhrelid::regclass)), 0)::bigint
FROM pg_inherits i WHERE i.inhparent = 'events_tx_brin'::regclass AND ($1 = '' OR i.inhrelid = $1::text::regclass)`, index).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A merge reads the partitions of its slice's calls only, and the summary
// the partitions merged or still in the tail: with an old month's
// partition locked by another transaction (which blocks any statement
// that opens it), mid-month calls of this month are merged and summarized
// and the partitions listed within the test's bound; a summary of that
// month's merged span summarizes its ranges. The rollups equal a Go sum
// over both months' calls.
func TestMergeAndSummaryReadTheirMonthsOnly(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	may := time.Date(2019, 5, 10, 12, 0, 0, 0, time.UTC)
	for _, month := range []time.Time{may, time.Now()} {
		if _, err := db.EnsureEventPartitions(ctx, month, 0); err != nil {
			t.Fatal(err)
		}
	}
	kept := map[string]event.Event{}
	write := func(prefix string, at func(i int) time.Time) {
		t.Helper()
		var calls []event.Event
		for i := range 3000 {
			c := callAt(p, fmt.Sprintf("%s%d", prefix, i), at(i))
			kept[c.EventID] = c
			calls = append(calls, c)
		}
		for i := 0; i < len(calls); i += 1000 {
			if _, err := db.Write(ctx, calls[i:i+1000], nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("may", func(i int) time.Time { return may.Add(time.Duration(i) * time.Second) })
	old := partitionOf(t, db, p, "may0")
	var oldIndex string
	if err := db.Pool.QueryRow(ctx, `SELECT i.inhrelid::regclass::text FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
		WHERE i.inhparent = 'events_tx_brin'::regclass AND x.indrelid = $1::regclass`, old).Scan(&oldIndex); err != nil {
		t.Fatal(err)
	}
	// Autovacuum would summarize the month's full ranges in its own time.
	if _, err := db.Pool.Exec(ctx, `ALTER INDEX `+oldIndex+` SET (autosummarize = off)`); err != nil {
		t.Fatal(err)
	}
	merged, err := db.MergeRollups(ctx)
	if err != nil || merged.Span.Start.Before(may) || merged.Span.End.After(may.Add(time.Hour)) {
		t.Fatalf("merged %+v (%v): want the span of May's calls", merged, err)
	}

	// Mid-month: a call within a day of a month boundary probes for its
	// replay in the neighbouring months, through a plan that opens every
	// partition (llmcost_replay_stored). Written before the lock, whose
	// transaction id holds the merge's horizon below what follows it.
	y, m, _ := time.Now().UTC().Date()
	mid := time.Date(y, m, 15, 12, 0, 0, 0, time.UTC)
	write("now", func(i int) time.Time { return mid.Add(time.Duration(i) * time.Millisecond) })
	lock, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback(ctx) }()
	if _, err := lock.Exec(ctx, `LOCK TABLE `+old+` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := db.MergeRollups(bounded)
	if err != nil || res.Steps == 0 {
		t.Fatalf("merging this month's calls beside a locked old month: %+v, %v", res, err)
	}
	if err := db.SummarizeTail(bounded, res.Span); err != nil {
		t.Fatalf("summarizing this month's calls beside a locked old month: %v", err)
	}
	if parts, err := db.EventPartitions(bounded); err != nil || len(parts) < 3 {
		t.Fatalf("listing the partitions beside a locked old month: %v, %v", parts, err)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	compareRollups(t, "after merging two months apart", readRollups(t, db, p), expectRollups(kept))

	// May's calls were merged while its summary was not asked for: a summary
	// of the span merged then summarizes its ranges.
	if err := db.SummarizeTail(ctx, merged.Span); err != nil {
		t.Fatal(err)
	}
	if left := unsummarized(t, db, oldIndex); left != 0 {
		t.Fatalf("%d ranges of May left unsummarized by a summary of the span merged", left)
	}
}

// Transactions that stored no call move the watermark past them without a
// merge statement: the merged span is empty, so the summary after it
// takes only the unmerged tail's partitions and DEFAULT.
func TestMergePassesTransactionsWithoutCalls(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.PutBudget(ctx, p, postgres.Budget{Enabled: true, Mode: "warn", BudgetNano: 1, Thresholds: []int32{100}}); err != nil {
		t.Fatal(err)
	}
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.MergeRollups(ctx)
	if err != nil || res.Steps == 0 || res.Groups != 0 || !res.Span.Empty() {
		t.Fatalf("merged %+v (%v): want the watermark moved, nothing read", res, err)
	}
	if done, err := db.MergedTo(ctx, horizon-1); err != nil || !done {
		t.Fatalf("the watermark stayed below the budget's transaction (%v)", err)
	}
}
