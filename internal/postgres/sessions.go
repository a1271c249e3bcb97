package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// errBadRefresh answers every refresh token that is unknown, expired,
// revoked or reused alike, so the reply says nothing about which.
func errBadRefresh() error {
	return apierr.New(apierr.Unauthorized, "invalid or expired refresh token").
		WithHint("sign in again")
}

// RefreshSession rotates a session's token pair. The conditional UPDATE on
// the old refresh hash is what makes two concurrent refreshes with one token
// succeed exactly once: the second waits for the first's row lock, then no
// longer matches. A refresh token that was already rotated away is reuse: the
// whole session is revoked and reusedSessionID names it. next carries the new
// hashes and the access token's lifetime, capped by the session's own end.
func (db *DB) RefreshSession(ctx context.Context, oldRefresh []byte, next Session, now time.Time) (s Session, reusedSessionID string, err error) {
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE sessions
			SET access_hash = $2, access_expires_at = LEAST($3, expires_at), refresh_hash = $4, refreshed_at = $5
			WHERE refresh_hash = $1 AND revoked_at IS NULL AND expires_at > $5
			RETURNING id, user_id, access_expires_at, expires_at, remember_me`,
			oldRefresh, next.AccessHash, next.AccessExpiresAt, next.RefreshHash, now).
			Scan(&s.ID, &s.UserID, &s.AccessExpiresAt, &s.ExpiresAt, &s.RememberMe)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO used_refresh_tokens (refresh_hash, session_id, used_at) VALUES ($1, $2, $3)`,
			oldRefresh, s.ID, now)
		return err
	})
	if err == nil {
		return s, "", nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return s, "", translate(err, "session")
	}
	// Not a live token: if it was rotated away before, revoke its session.
	err = db.Pool.QueryRow(ctx, `UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2)
		WHERE id = (SELECT session_id FROM used_refresh_tokens WHERE refresh_hash = $1)
		RETURNING id`, oldRefresh, now).Scan(&reusedSessionID)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return s, "", translate(err, "session")
	}
	return s, reusedSessionID, errBadRefresh()
}

// RevokeSession ends one session: its access and refresh tokens fail at once.
func (db *DB) RevokeSession(ctx context.Context, sessionID string, now time.Time) error {
	_, err := db.Pool.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, sessionID, now)
	return translate(err, "session")
}

// RevokeUserSessions ends every session of a user except keep (may be "").
func (db *DB) RevokeUserSessions(ctx context.Context, userID, keep string, now time.Time) error {
	return revokeUserSessions(ctx, db.Pool, userID, keep, now)
}

func revokeUserSessions(ctx context.Context, q querier, userID, keep string, now time.Time) error {
	var except *string
	if keep != "" {
		except = &keep
	}
	_, err := q.Exec(ctx, `UPDATE sessions SET revoked_at = $3
		WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid)`, userID, except, now)
	return translate(err, "session")
}

const userCols = `id, email, name, password_hash, email_verified, created_at, last_active_at`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.PasswordHash, &u.EmailVerified, &u.CreatedAt, &u.LastActiveAt)
	return u, translate(err, "user")
}

// TouchUser returns the user's profile and records activity, writing
// last_active_at only when the stored value is older than debounce.
func (db *DB) TouchUser(ctx context.Context, userID string, now time.Time, debounce time.Duration) (User, error) {
	u, err := scanUser(db.Pool.QueryRow(ctx, `UPDATE users SET last_active_at = $2
		WHERE id = $1 AND (last_active_at IS NULL OR last_active_at <= $3)
		RETURNING `+userCols, userID, now, now.Add(-debounce)))
	if apierr.As(err).Code == apierr.NotFound {
		return db.UserByID(ctx, userID)
	}
	return u, err
}

// SetUserName updates the display name.
func (db *DB) SetUserName(ctx context.Context, userID, name string, now time.Time) (User, error) {
	return scanUser(db.Pool.QueryRow(ctx, `UPDATE users SET name = $2, updated_at = $3 WHERE id = $1
		RETURNING `+userCols, userID, name, now))
}

// ChangePassword stores a new hash and ends every other session of the
// user, in one transaction.
func (db *DB) ChangePassword(ctx context.Context, userID, hash, keepSession string, now time.Time) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1`,
			userID, hash, now); err != nil {
			return translate(err, "user")
		}
		return revokeUserSessions(ctx, tx, userID, keepSession, now)
	})
}
