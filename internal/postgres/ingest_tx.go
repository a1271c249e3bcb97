package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The ingest transaction is opened and closed by hand, not with pgx.Tx,
// which sends BEGIN and COMMIT each on its own: here BEGIN travels with the
// insert statement (insert) and COMMIT with the statements a hook deferred
// (WriteTx.later: the alert queue's row), so a batch takes two round
// trips, judged or not, where it took three, and four or more with new
// alerts (judging must cost a batch only a few percent). The saved
// round trips alone measured within the noise (docs/guardrails.md
// "Alerts"); what this buys is the queue's row riding with COMMIT.

const (
	beginSQL = `BEGIN`
	// savepointSQL is sent after the insert statement, rollbackDeferredSQL
	// undoes the deferred statements back to it.
	savepointSQL        = `SAVEPOINT llmcost_deferred`
	rollbackDeferredSQL = `ROLLBACK TO SAVEPOINT llmcost_deferred`
)

// ingestTx acquires a connection and runs fn, which must open the
// transaction with its first statement (insert), then commits it with the
// statements its WriteTx deferred (none when fn returns a nil WriteTx). On
// any failure the transaction is rolled back; a connection left in an
// unknown state (a cancelled context) is closed by the pool on release.
func (db *DB) ingestTx(ctx context.Context, fn func(*pgxpool.Conn) (*WriteTx, error)) error {
	var err error
	for range routingAttempts {
		if err = db.ingestTxOnce(ctx, fn); !isStaleRouting(err) {
			break
		}
	}
	return err
}

// routingAttempts bounds how often a batch is written again after a stale
// routing (isStaleRouting): the partition job attaches a month at most
// once per run, so a second attempt routes by the new partitions.
const routingAttempts = 3

// isStaleRouting reports the failure of an insert that routed a call to
// events' DEFAULT partition while the partition job attached that call's
// month: ATTACH lets inserts run beside it, and one that chose DEFAULT by
// the partitions it saw at its start fails DEFAULT's new partition
// constraint (a check violation naming no constraint). The batch rolled
// back whole, so writing it again stores each call once.
func isStaleRouting(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23514" && pe.ConstraintName == "" && pe.TableName == "events_default"
}

// ingestTxOnce is one attempt of ingestTx.
func (db *DB) ingestTxOnce(ctx context.Context, fn func(*pgxpool.Conn) (*WriteTx, error)) error {
	conn, err := db.workPool().Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	w, err := fn(conn)
	if err == nil {
		err = w.commit(ctx, conn)
	}
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' && !conn.Conn().IsClosed() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = conn.Exec(rctx, `ROLLBACK`) // else the pool closes the connection
	}
	return err
}

// errAlertsUndone marks a deferred hook statement's failure, after which
// the batch committed without its alerts.
var errAlertsUndone = errors.New("deferred alert statements failed")

// commit sends the deferred statements and COMMIT in one round trip.
// Should a deferred statement fail (also while pgx prepares it), PostgreSQL
// skips the rest of the pipeline, COMMIT included; the batch is then
// committed without them (ROLLBACK TO the SAVEPOINT insert sent after the
// insert statement, then COMMIT), since alerts never refuse a batch, and
// Undone hears of the failure.
func (w *WriteTx) commit(ctx context.Context, conn *pgxpool.Conn) error {
	if w == nil || len(w.deferred) == 0 {
		_, err := conn.Exec(ctx, `COMMIT`)
		return err
	}
	b := &pgx.Batch{}
	for _, q := range w.deferred {
		b.Queue(q.sql, q.args...)
	}
	b.Queue(`COMMIT`)
	err := conn.SendBatch(ctx, b).Close()
	if err == nil || conn.Conn().PgConn().TxStatus() != 'E' || ctx.Err() != nil {
		return err
	}
	if w.Undone != nil {
		w.Undone(errors.Join(errAlertsUndone, err))
	}
	b = &pgx.Batch{}
	b.Queue(rollbackDeferredSQL)
	b.Queue(`COMMIT`)
	return conn.SendBatch(ctx, b).Close()
}
