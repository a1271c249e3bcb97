package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// Notification is one in-app notice to a user.
type Notification struct {
	ID, ProjectID, Type, Title, Body string
	Data                             json.RawMessage
	CreatedAt                        time.Time
	ReadAt                           *time.Time
}

// Notifications lists a user's notifications, newest first, with the total
// and unread counts.
func (db *DB) Notifications(ctx context.Context, userID string, limit, offset int) ([]Notification, int64, int64, error) {
	var total, unread int64
	if err := db.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE read_at IS NULL)
FROM notifications WHERE user_id = $1`, userID).Scan(&total, &unread); err != nil {
		return nil, 0, 0, translate(err, "notifications")
	}
	rows, err := db.Pool.Query(ctx, `SELECT id, project_id, type, title, body, data, created_at, read_at
FROM notifications WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, 0, translate(err, "notifications")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Notification, error) {
		var n Notification
		err := r.Scan(&n.ID, &n.ProjectID, &n.Type, &n.Title, &n.Body, &n.Data, &n.CreatedAt, &n.ReadAt)
		return n, err
	})
	return out, total, unread, translate(err, "notifications")
}

// MarkNotificationRead marks one of the user's notifications read (404
// for another user's or an unknown id).
func (db *DB) MarkNotificationRead(ctx context.Context, userID, id string) error {
	return db.deleteOne(ctx, `UPDATE notifications SET read_at = coalesce(read_at, now())
WHERE id = $2::uuid AND user_id = $1`, "notification", userID, id)
}
