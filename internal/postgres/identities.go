package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Identity is an account at an identity provider, as the provider vouched
// for it.
type Identity struct {
	Provider      string // google, github
	Subject       string // the provider's stable user id
	Email         string
	EmailVerified bool
	Name          string
}

// SocialSignIn signs in the user a provider identity belongs to and starts
// session s, in one transaction. An identity seen before signs in its user.
// A new one is linked by e-mail only when the provider verified the address;
// an existing account whose address was never verified is taken over
// cleanly (its password and sessions are dropped), so whoever registered
// the address first cannot keep a way in. Without an account, one is
// created with the address verified. created reports that.
func (db *DB) SocialSignIn(ctx context.Context, id Identity, s Session, now time.Time) (u User, created bool, err error) {
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+prefixed("u.", userCols)+` FROM identities i
			JOIN users u ON u.id = i.user_id WHERE i.provider = $1 AND i.subject = $2`, id.Provider, id.Subject))
		if apierr.As(err).Code == apierr.NotFound {
			u, created, err = linkIdentity(ctx, tx, id, now)
		}
		if err != nil {
			return err
		}
		s.UserID = u.ID
		return createSession(ctx, tx, s)
	})
	return u, created, err
}

func linkIdentity(ctx context.Context, tx pgx.Tx, id Identity, now time.Time) (User, bool, error) {
	if !id.EmailVerified {
		return User{}, false, apierr.New(apierr.Unauthorized, "the identity provider has not verified this e-mail address").
			WithHint("verify the address with the provider, or register with e-mail and password")
	}
	u, err := scanUser(tx.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE email = $1 FOR UPDATE`, id.Email))
	created := false
	switch {
	case apierr.As(err).Code == apierr.NotFound:
		u = User{ID: uuid.NewString(), Email: id.Email, Name: id.Name, EmailVerified: true, CreatedAt: now}
		if _, err := tx.Exec(ctx, `INSERT INTO users (id, email, name, email_verified, created_at, updated_at)
			VALUES ($1, $2, $3, true, $4, $4)`, u.ID, u.Email, u.Name, now); err != nil {
			return u, false, translate(err, "an account with this e-mail")
		}
		if err := linkInvitations(ctx, tx, u.ID, u.Email); err != nil {
			return u, false, err
		}
		created = true
	case err != nil:
		return u, false, err
	case !u.EmailVerified:
		if _, err := tx.Exec(ctx, `UPDATE users SET email_verified = true, password_hash = '', updated_at = $2
			WHERE id = $1`, u.ID, now); err != nil {
			return u, false, translate(err, "user")
		}
		if err := revokeUserSessions(ctx, tx, u.ID, "", now); err != nil {
			return u, false, err
		}
		u.EmailVerified, u.PasswordHash = true, ""
	}
	_, err = tx.Exec(ctx, `INSERT INTO identities (provider, subject, user_id, email, created_at) VALUES ($1, $2, $3, $4, $5)`,
		id.Provider, id.Subject, u.ID, id.Email, now)
	return u, created, translate(err, "identity")
}

// prefixed qualifies a comma-separated column list with a table alias.
func prefixed(alias, cols string) string {
	return alias + strings.ReplaceAll(cols, ", ", ", "+alias)
}
