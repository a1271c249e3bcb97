package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

// savepointHook claims one breach alert inside Savepoint, then fails: with
// badNotice by a statement that errors (a notice whose data is not JSON),
// else by returning an error itself; with succeed it does not fail.
type savepointHook struct {
	badNotice, succeed bool
	err                error
}

func (h *savepointHook) AfterWrite(ctx context.Context, tx *postgres.WriteTx, w postgres.Written) error {
	p := w.Events[0].ProjectID
	h.err = tx.Savepoint(ctx, func() error {
		b := []guardrail.Breach{{Agent: "a", Subject: "web", Kind: guardrail.UndeclaredTool}}
		n := []postgres.Notice{{Type: "guardrail.breach", Title: "t", Body: "b", Data: json.RawMessage(`{}`)}}
		if _, err := tx.ClaimBreachAlerts(ctx, p, b, time.Now().UTC().Truncate(time.Hour), n); err != nil {
			return err
		}
		if h.badNotice {
			return tx.Notify(ctx, p, []postgres.Notice{{Type: "x", Data: json.RawMessage(`not json`)}})
		}
		if h.succeed {
			return nil
		}
		return errors.New("judging failed")
	})
	return nil // the hook swallows its own failure, as internal/alerts does
}

// TestSavepointUndoesOnlyTheAlerts: a failure inside Savepoint (a failed
// statement, or an error after a successful one) rolls back the alerts'
// writes and the batch still commits, with the SAVEPOINT sent together
// with the first statement.
func TestSavepointUndoesOnlyTheAlerts(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	for i, h := range []*savepointHook{{}, {badNotice: true}, {succeed: true}} {
		p := newProject(t, db)
		res, err := db.WriteWith(ctx, h, []event.Event{call(p, "e", 10)}, nil)
		if err != nil || res.Stored != 1 || (h.err == nil) != h.succeed {
			t.Fatalf("case %d: stored %d (%v), hook error %v", i, res.Stored, err, h.err)
		}
		var alerts, notes int
		if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM guardrail_alerts WHERE project_id = $1),
  (SELECT count(*) FROM notifications WHERE project_id = $1)`, p).Scan(&alerts, &notes); err != nil {
			t.Fatal(err)
		}
		if h.succeed != (alerts == 1 && notes == 1) || (!h.succeed && alerts+notes != 0) {
			t.Fatalf("case %d: %d alerts and %d notifications after the savepoint (error %v)", i, alerts, notes, h.err)
		}
	}
}
