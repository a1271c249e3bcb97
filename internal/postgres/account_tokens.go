package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Purposes of mailed account tokens.
const (
	PurposeVerifyEmail   = "verify_email"
	PurposeResetPassword = "reset_password"
)

// CreateAccountToken stores the hash of a token mailed to userID at email.
func (db *DB) CreateAccountToken(ctx context.Context, purpose, userID, email string, hash []byte, expires, now time.Time) error {
	_, err := db.Pool.Exec(ctx, `INSERT INTO account_tokens (token_hash, purpose, user_id, email, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, hash, purpose, userID, email, expires, now)
	return translate(err, "token")
}

// consumeToken marks a live token used and returns its user and e-mail; an
// unknown, used or expired token is a validation failure of the token field.
func consumeToken(ctx context.Context, tx pgx.Tx, purpose string, hash []byte, now time.Time) (userID, email string, err error) {
	err = tx.QueryRow(ctx, `UPDATE account_tokens SET used_at = $3
		WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
		RETURNING user_id, email`, hash, purpose, now).Scan(&userID, &email)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", apierr.Field("token", "is invalid, already used or expired")
	}
	return userID, email, translate(err, "token")
}

// ResetPassword spends a reset token: it sets the new hash, spends the
// user's other reset tokens, and ends every session, all or nothing. The
// mail reached its owner, so the address counts as verified.
func (db *DB) ResetPassword(ctx context.Context, tokenHash []byte, passwordHash string, now time.Time) (userID string, err error) {
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var email string
		if userID, email, err = consumeToken(ctx, tx, PurposeResetPassword, tokenHash, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = $3,
			email_verified = email_verified OR email = $4 WHERE id = $1`,
			userID, passwordHash, now, email); err != nil {
			return translate(err, "user")
		}
		if _, err := tx.Exec(ctx, `UPDATE account_tokens SET used_at = $3
			WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`, userID, PurposeResetPassword, now); err != nil {
			return translate(err, "token")
		}
		return revokeUserSessions(ctx, tx, userID, "", now)
	})
	return userID, err
}

// VerifyEmail spends a verification token and marks the address verified,
// provided it is still the account's address.
func (db *DB) VerifyEmail(ctx context.Context, tokenHash []byte, now time.Time) (User, error) {
	var u User
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		userID, email, err := consumeToken(ctx, tx, PurposeVerifyEmail, tokenHash, now)
		if err != nil {
			return err
		}
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET email_verified = true, updated_at = $3
			WHERE id = $1 AND email = $2 RETURNING `+userCols, userID, email, now))
		if apierr.As(err).Code == apierr.NotFound {
			return apierr.Field("token", "is for an address the account no longer uses")
		}
		return err
	})
	return u, err
}

// AcceptConsents records accepted policy versions; accepting one twice keeps
// the first record.
func (db *DB) AcceptConsents(ctx context.Context, userID string, consents []Consent, now time.Time) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		for _, c := range consents {
			if _, err := tx.Exec(ctx, `INSERT INTO consents (user_id, document, version, ip, user_agent, accepted_at)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
				userID, c.Document, c.Version, c.IP, c.UserAgent, now); err != nil {
				return translate(err, "consent")
			}
		}
		return nil
	})
}

// AcceptedVersions returns, per document, every version the user accepted,
// most recent first.
func (db *DB) AcceptedVersions(ctx context.Context, userID string) (map[string][]string, error) {
	rows, err := db.Pool.Query(ctx, `SELECT document, version FROM consents
		WHERE user_id = $1 ORDER BY accepted_at DESC, version DESC`, userID)
	if err != nil {
		return nil, translate(err, "consent")
	}
	out := map[string][]string{}
	var doc, version string
	_, err = pgx.ForEachRow(rows, []any{&doc, &version}, func() error {
		out[doc] = append(out[doc], version)
		return nil
	})
	return out, translate(err, "consent")
}
