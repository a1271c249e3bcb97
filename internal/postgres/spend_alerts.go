package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/webhook"
)

// ClaimForecastAlert records that month's budget.forecast_exceeded alert
// was sent and, in the same transaction, notifies the project's owners and
// admins and queues the signed delivery when the project has a webhook. It
// returns false, doing nothing, when the month was alerted already, on this
// instance or another.
func (db *DB) ClaimForecastAlert(ctx context.Context, projectID string, month time.Time, n Notice, env webhook.Envelope) (bool, error) {
	return db.claimAlert(ctx, "spend alert", projectID, n, env, `INSERT INTO forecast_alerts (project_id, month) VALUES ($1, $2)
ON CONFLICT DO NOTHING`, projectID, month)
}

// ClaimAnomalyAlert is ClaimForecastAlert for a spend.anomaly of scope
// ("project" or "agent:<name>") on day.
func (db *DB) ClaimAnomalyAlert(ctx context.Context, projectID, scope string, day time.Time, n Notice, env webhook.Envelope) (bool, error) {
	return db.claimAlert(ctx, "spend alert", projectID, n, env, `INSERT INTO anomaly_alerts (project_id, scope, day) VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING`, projectID, scope, day)
}

// claimAlert runs claim (an INSERT … ON CONFLICT DO NOTHING of the alert's
// row) and, when it inserted, the notice and the delivery, in one
// transaction: the row, the notices and the job commit together or not at
// all, so a failed evaluation is retried whole by the next. what names the
// alert in a translated error. Every once-per-period alert (forecast,
// anomaly, reconciliation drift) is claimed here.
func (db *DB) claimAlert(ctx context.Context, what, projectID string, n Notice, env webhook.Envelope, claim string, args ...any) (bool, error) {
	fresh := false
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, claim, args...)
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
	return fresh, translate(err, what)
}

// SpendingProject is a project with metered spend in a month, and its
// budget when one is set.
type SpendingProject struct {
	ProjectID string
	SpendNano int64
	Budget    *Budget
}

// SpendingProjects lists the projects with metered spend in month (its
// first day), with their budgets: the projects the periodic forecast and
// anomaly evaluation looks at. One row of spend_month per project; a
// project marked deleted (its rows await the purge) is not alerted.
func (db *DB) SpendingProjects(ctx context.Context, month time.Time) ([]SpendingProject, error) {
	rows, err := db.Pool.Query(ctx, `SELECT s.project_id::text, s.metered_nano, b.enabled, b.mode, b.budget_nano, b.thresholds
FROM spend_month s JOIN projects p ON p.id = s.project_id LEFT JOIN budgets b USING (project_id)
WHERE s.month = $1 AND s.metered_nano > 0 AND p.deleted_at IS NULL
ORDER BY s.project_id`, month)
	if err != nil {
		return nil, translate(err, "spending projects")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SpendingProject, error) {
		var p SpendingProject
		var enabled *bool
		var mode *string
		var nano *int64
		var th []int32
		if err := r.Scan(&p.ProjectID, &p.SpendNano, &enabled, &mode, &nano, &th); err != nil {
			return p, err
		}
		if enabled != nil {
			p.Budget = &Budget{Enabled: *enabled, Mode: *mode, BudgetNano: *nano, Thresholds: th}
		}
		return p, nil
	})
	return out, translate(err, "spending projects")
}
