package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProjectRole is a project seen by one of its accepted members.
type ProjectRole struct {
	Project
	Role    string
	IsOwner bool
}

// UserProjects lists the projects a user is an accepted member of, oldest
// first.
func (db *DB) UserProjects(ctx context.Context, userID string) ([]ProjectRole, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+prefixed("p.", projectCols)+`, m.role, m.is_owner
		FROM memberships m JOIN projects p ON p.id = m.project_id
		WHERE m.user_id = $1 AND m.accepted_at IS NOT NULL AND p.deleted_at IS NULL ORDER BY p.created_at, p.id`, userID)
	if err != nil {
		return nil, translate(err, "project")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ProjectRole, error) {
		var p ProjectRole
		err := row.Scan(&p.ID, &p.Name, &p.Description, &p.OwnerID, &p.IsActive, &p.KeyPrefix,
			&p.CreatedAt, &p.UpdatedAt, &p.Role, &p.IsOwner)
		return p, err
	})
	return out, translate(err, "project")
}

// ProjectUpdate holds the fields to change; nil leaves a field as it is.
type ProjectUpdate struct {
	Name        *string
	Description *string
	IsActive    *bool
}

// UpdateProject applies u and returns the project.
func (db *DB) UpdateProject(ctx context.Context, id string, u ProjectUpdate, now time.Time) (Project, error) {
	p, err := scanProject(db.Pool.QueryRow(ctx, `UPDATE projects SET name = COALESCE($2, name),
		description = COALESCE($3, description), is_active = COALESCE($4, is_active), updated_at = $5
		WHERE id = $1 AND deleted_at IS NULL RETURNING `+projectCols, id, u.Name, u.Description, u.IsActive, now))
	return p, translate(err, "project")
}

// RotateKey replaces a project's key hash: the old key fails at once on
// this instance (its key cache is emptied before this returns) and on the
// others as soon as migration 0016's NOTIFY reaches them.
func (db *DB) RotateKey(ctx context.Context, id string, keyHash []byte, keyPrefix string, now time.Time) (Project, error) {
	p, err := scanProject(db.Pool.QueryRow(ctx, `UPDATE projects SET key_hash = $2, key_prefix = $3, updated_at = $4
		WHERE id = $1 AND deleted_at IS NULL RETURNING `+projectCols, id, keyHash, keyPrefix, now))
	db.dropKeys()
	return p, translate(err, "project")
}
