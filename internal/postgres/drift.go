package postgres

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/webhook"
)

// ClaimDriftAlert records that provider's drift alert of month was sent,
// and in the same transaction notifies the project's owners and admins
// and queues the signed delivery when the project has a webhook. It
// returns false, doing nothing, when the month was alerted already, on
// this instance or another.
func (db *DB) ClaimDriftAlert(ctx context.Context, projectID, provider string, month time.Time, n Notice, env webhook.Envelope) (bool, error) {
	return db.claimAlert(ctx, "drift alert", projectID, n, env, `INSERT INTO reconciliation_alerts (project_id, provider, month)
VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, projectID, provider, month)
}
