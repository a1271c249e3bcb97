package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/webhook"
)

// ClaimDriftAlert records that provider's drift alert of month was sent,
// and in the same transaction notifies the project's owners and admins
// and queues the signed delivery when the project has a webhook. It
// returns false, doing nothing, when the month was alerted already, on
// this instance or another.
func (db *DB) ClaimDriftAlert(ctx context.Context, projectID, provider string, month time.Time, n Notice, env webhook.Envelope) (bool, error) {
	fresh := false
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO reconciliation_alerts (project_id, provider, month) VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING`, projectID, provider, month)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		fresh = true
		if _, err := tx.Exec(ctx, notifyAdmins(`(SELECT $2::text AS typ, $3::text AS title, $4::text AS body,
    $5::text AS data, 1 AS i) n`), projectID, n.Type, n.Title, n.Body, string(n.Data)); err != nil {
			return err
		}
		var hooked bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhooks WHERE project_id = $1)`, projectID).Scan(&hooked); err != nil {
			return err
		}
		if !hooked || db.Enqueue == nil {
			return nil
		}
		return db.Enqueue(ctx, tx, []webhook.Envelope{env})
	})
	return fresh, translate(err, "drift alert")
}
