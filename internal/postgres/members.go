package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Member is a membership of a project: accepted, or pending until the
// invitee accepts. UserID is nil while the invitee has no account.
type Member struct {
	ID         string
	UserID     *string
	Email      string
	Name       string
	Role       string
	IsOwner    bool
	InvitedAt  time.Time
	AcceptedAt *time.Time
}

// Invitation is a pending membership as its invitee sees it.
type Invitation struct {
	ProjectID    string
	ProjectName  string
	Role         string
	InviterName  *string
	InviterEmail *string
	InvitedAt    time.Time
}

// Members lists a project's memberships, accepted and pending, owner first.
// Pending invitations older than notBefore have expired and are left out.
func (db *DB) Members(ctx context.Context, projectID string, notBefore time.Time) ([]Member, error) {
	rows, err := db.Pool.Query(ctx, `SELECT m.id, m.user_id, COALESCE(u.email, m.email), COALESCE(u.name, ''),
		m.role, m.is_owner, m.invited_at, m.accepted_at
		FROM memberships m LEFT JOIN users u ON u.id = m.user_id
		WHERE m.project_id = $1 AND (m.accepted_at IS NOT NULL OR m.invited_at > $2)
		ORDER BY m.is_owner DESC, m.accepted_at NULLS LAST, m.invited_at, m.id`, projectID, notBefore)
	if err != nil {
		return nil, translate(err, "member")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Member, error) {
		var m Member
		err := row.Scan(&m.ID, &m.UserID, &m.Email, &m.Name, &m.Role, &m.IsOwner, &m.InvitedAt, &m.AcceptedAt)
		return m, err
	})
	return out, translate(err, "member")
}

// Invite records a pending membership for email. An expired invitation of
// the same address is renewed; an accepted or live one is a conflict.
func (db *DB) Invite(ctx context.Context, projectID, email, role, invitedBy string, now, notBefore time.Time) (string, error) {
	var id string
	err := db.Pool.QueryRow(ctx, `INSERT INTO memberships (id, project_id, user_id, email, role, invited_by, invited_at)
		VALUES ($1, $2, (SELECT id FROM users WHERE email = $3), $3, $4, $5, $6)
		ON CONFLICT (project_id, email) DO UPDATE
			SET role = EXCLUDED.role, invited_by = EXCLUDED.invited_by, invited_at = EXCLUDED.invited_at,
				user_id = EXCLUDED.user_id
			WHERE memberships.accepted_at IS NULL AND memberships.invited_at <= $7
		RETURNING id`, uuid.NewString(), projectID, email, role, invitedBy, now, notBefore).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apierr.New(apierr.Conflict, "this address is already a member of the project or has a pending invitation").
			WithHint("change the member's role instead, or remove the pending invitation first")
	}
	return id, translate(err, "invitation")
}

// linkInvitations attaches invitations sent to an address before its
// account existed to the new account.
func linkInvitations(ctx context.Context, q querier, userID, email string) error {
	_, err := q.Exec(ctx, `UPDATE memberships SET user_id = $1 WHERE user_id IS NULL AND email = $2`, userID, email)
	return translate(err, "invitation")
}

// PendingInvitations lists the live invitations addressed to email.
func (db *DB) PendingInvitations(ctx context.Context, email string, notBefore time.Time) ([]Invitation, error) {
	rows, err := db.Pool.Query(ctx, `SELECT p.id, p.name, m.role, u.name, u.email, m.invited_at
		FROM memberships m JOIN projects p ON p.id = m.project_id LEFT JOIN users u ON u.id = m.invited_by
		WHERE m.email = $1 AND m.accepted_at IS NULL AND m.invited_at > $2
		ORDER BY m.invited_at DESC, p.id`, email, notBefore)
	if err != nil {
		return nil, translate(err, "invitation")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Invitation, error) {
		var i Invitation
		err := row.Scan(&i.ProjectID, &i.ProjectName, &i.Role, &i.InviterName, &i.InviterEmail, &i.InvitedAt)
		return i, err
	})
	return out, translate(err, "invitation")
}

func errNoInvitation() error {
	return apierr.New(apierr.NotFound, "no pending invitation to this project for your address")
}

// AcceptInvitation accepts the caller's live invitation to a project and
// returns the role. Accepting again is harmless and returns the same role.
func (db *DB) AcceptInvitation(ctx context.Context, projectID, userID, email string, now, notBefore time.Time) (string, error) {
	var role string
	err := db.Pool.QueryRow(ctx, `UPDATE memberships SET accepted_at = COALESCE(accepted_at, $4), user_id = $2
		WHERE project_id = $1 AND (user_id = $2 OR email = $3)
			AND (accepted_at IS NOT NULL OR invited_at > $5)
		RETURNING role`, projectID, userID, email, now, notBefore).Scan(&role)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errNoInvitation()
	}
	return role, translate(err, "invitation")
}

// DeclineInvitation deletes the caller's pending invitation to a project.
func (db *DB) DeclineInvitation(ctx context.Context, projectID, email string) error {
	tag, err := db.Pool.Exec(ctx, `DELETE FROM memberships
		WHERE project_id = $1 AND email = $2 AND accepted_at IS NULL`, projectID, email)
	if err == nil && tag.RowsAffected() == 0 {
		return errNoInvitation()
	}
	return translate(err, "invitation")
}

func errOwner(what string) error {
	return apierr.New(apierr.BadRequest, "the project owner cannot be "+what).
		WithHint("the owner stays an admin for the project's lifetime; delete the project instead")
}

// memberForUpdate locks the membership named by a user id or a membership
// id (so a pending invitation without an account can be addressed too).
func memberForUpdate(ctx context.Context, tx pgx.Tx, projectID, target string) (id string, owner bool, err error) {
	err = tx.QueryRow(ctx, `SELECT id, is_owner FROM memberships
		WHERE project_id = $1 AND (user_id = $2 OR id = $2) FOR UPDATE`, projectID, target).Scan(&id, &owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, apierr.New(apierr.NotFound, "no such member in this project")
	}
	return id, owner, translate(err, "member")
}

// ChangeRole sets a member's role; the owner's cannot change.
func (db *DB) ChangeRole(ctx context.Context, projectID, target, role string) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		id, owner, err := memberForUpdate(ctx, tx, projectID, target)
		switch {
		case err != nil:
			return err
		case owner:
			return errOwner("demoted")
		}
		_, err = tx.Exec(ctx, `UPDATE memberships SET role = $2 WHERE id = $1`, id, role)
		return translate(err, "member")
	})
}

// RemoveMember deletes a membership or pending invitation; never the owner's.
func (db *DB) RemoveMember(ctx context.Context, projectID, target string) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		id, owner, err := memberForUpdate(ctx, tx, projectID, target)
		switch {
		case err != nil:
			return err
		case owner:
			return errOwner("removed")
		}
		_, err = tx.Exec(ctx, `DELETE FROM memberships WHERE id = $1`, id)
		return translate(err, "member")
	})
}

// LeaveProject ends the caller's own accepted membership; the owner cannot
// leave.
func (db *DB) LeaveProject(ctx context.Context, projectID, userID string) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var id string
		var owner bool
		err := tx.QueryRow(ctx, `SELECT id, is_owner FROM memberships
			WHERE project_id = $1 AND user_id = $2 AND accepted_at IS NOT NULL FOR UPDATE`, projectID, userID).Scan(&id, &owner)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return apierr.New(apierr.NotFound, "project not found")
		case err != nil:
			return translate(err, "member")
		case owner:
			return apierr.New(apierr.BadRequest, "the project owner cannot leave the project").
				WithHint("the owner must transfer ownership or delete the project")
		}
		_, err = tx.Exec(ctx, `DELETE FROM memberships WHERE id = $1`, id)
		return translate(err, "member")
	})
}
