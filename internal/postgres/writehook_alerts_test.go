package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

// queueHook queues one breach with the batch's COMMIT and, with fail, a
// statement after it that fails.
type queueHook struct {
	fail   bool
	undone error
}

func (h *queueHook) AfterWrite(_ context.Context, tx *postgres.WriteTx, w postgres.Written) error {
	p := w.Events[0].ProjectID
	now := time.Now().UTC()
	if err := tx.QueueAlerts(p, now.Truncate(time.Hour), now,
		[]guardrail.Breach{{Agent: "a", Subject: "web", Kind: guardrail.UndeclaredTool, Count: 1}}, nil); err != nil {
		return err
	}
	if h.fail {
		tx.Later(`INSERT INTO alerts_pending (project_id, hour, judged_at) VALUES ($1, now(), 'not a time')`, p)
	}
	tx.Undone = func(err error) { h.undone = err }
	return nil
}

// TestDeferredAlertsNeverRefuseABatch: the alert queue's row travels with
// COMMIT; when a statement sent with it fails, the batch still commits,
// without any of them, and the hook hears why. When none fails the row is
// stored with the batch.
func TestDeferredAlertsNeverRefuseABatch(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	for _, h := range []*queueHook{{}, {fail: true}} {
		p := newProject(t, db)
		res, err := db.WriteWith(ctx, h, []event.Event{call(p, "e", 10)}, nil)
		if err != nil || res.Stored != 1 {
			t.Fatalf("fail=%v: stored %d (%v)", h.fail, res.Stored, err)
		}
		var events, queued int
		if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM events WHERE project_id = $1),
  (SELECT count(*) FROM alerts_pending WHERE project_id = $1)`, p).Scan(&events, &queued); err != nil {
			t.Fatal(err)
		}
		if events != 1 || queued != map[bool]int{false: 1, true: 0}[h.fail] || (h.undone != nil) != h.fail {
			t.Fatalf("fail=%v: %d events, %d queued rows, undone %v", h.fail, events, queued, h.undone)
		}
	}
	// The connection went back to the pool usable: the next batch stores.
	p := newProject(t, db)
	if res, err := db.Write(ctx, []event.Event{call(p, "after", 10)}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("after: stored %d (%v)", res.Stored, err)
	}
}
