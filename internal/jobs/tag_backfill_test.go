package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// A tag declared after calls were stored queues its back-fill with the
// declaration; the runner works it until every stored call is counted.
func TestATagDeclaredLateIsBackfilledByTheRunner(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	p := projectWithCalls(t, db, 50)
	ctx := context.Background()
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	r := startRunner(t, Config{Pool: db.Pool, Retry: fast, MailAttempts: 1, DB: db})
	db.EnqueueTagBackfill = r.EnqueueTagBackfillTx
	db.TagBackfillChunk = 7
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM river_job WHERE kind = 'tag_backfill' AND args->>'project_id' = $1`, p); n != 1 {
		t.Fatalf("%d back-fill jobs queued, want 1", n)
	}
	deadline := time.Now().Add(15 * time.Second)
	for countRows(t, db, `SELECT count(*) FROM project_tags WHERE project_id = $1 AND backfill_below > 0`, p) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the back-fill is still due after 15 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The calls carry no team: all 50 count under (none).
	if n := countRows(t, db, `SELECT coalesce(sum(calls), 0)::int FROM rollup_tag_day
		WHERE project_id = $1 AND tag = 'team' AND dim = 'tag' AND value = '(none)'`, p); n != 50 {
		t.Fatalf("the back-fill counted %d calls under (none), want 50", n)
	}
}
