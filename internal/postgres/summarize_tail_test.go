package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
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
	if err := db.SummarizeTail(ctx); err != nil {
		t.Fatalf("SummarizeTail: %v", err)
	}
	var left int64
	if err := db.Pool.QueryRow(ctx, `SELECT coalesce(sum(brin_summarize_new_values(i.inhrelid::regclass)), 0)::bigint
FROM pg_inherits i WHERE i.inhparent = 'events_tx_brin'::regclass`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d ranges left unsummarized after SummarizeTail", left)
	}
}
