package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Webhook is a project's delivery destination.
type Webhook struct {
	URL, Secret string
}

// Webhook reads the project's webhook; nil when none is set.
func (db *DB) Webhook(ctx context.Context, projectID string) (*Webhook, error) {
	var w Webhook
	err := db.Pool.QueryRow(ctx, `SELECT url, secret FROM webhooks WHERE project_id = $1`, projectID).Scan(&w.URL, &w.Secret)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, translate(err, "webhook")
	}
	return &w, nil
}

// PutWebhook sets the url and secret; an empty secret keeps the stored one
// (the caller checked there is one).
func (db *DB) PutWebhook(ctx context.Context, projectID, url, secret string) error {
	_, err := db.Pool.Exec(ctx, `WITH `+bumpPolicy+`
INSERT INTO webhooks (project_id, url, secret) VALUES ($1, $2, $3)
ON CONFLICT (project_id) DO UPDATE SET url = excluded.url,
    secret = CASE WHEN $3 = '' THEN webhooks.secret ELSE excluded.secret END, updated_at = now()`,
		projectID, url, secret)
	return translate(err, "webhook")
}

// ClearWebhook removes the url and the secret.
func (db *DB) ClearWebhook(ctx context.Context, projectID string) error {
	_, err := db.Pool.Exec(ctx, `WITH `+bumpPolicy+` DELETE FROM webhooks WHERE project_id = $1`, projectID)
	return translate(err, "webhook")
}
