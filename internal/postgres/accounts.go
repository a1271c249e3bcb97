package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/llmcost/llmcost/internal/apierr"
)

// User is an account.
type User struct {
	ID            string
	Email         string
	Name          string
	PasswordHash  string
	EmailVerified bool
	CreatedAt     time.Time
	LastActiveAt  *time.Time
}

// Consent is one accepted policy document.
type Consent struct {
	Document, Version, IP, UserAgent string
}

// Project is a project row; the key itself is never stored.
type Project struct {
	ID          string
	Name        string
	Description string
	OwnerID     string
	IsActive    bool
	KeyPrefix   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// NewProject describes a project to create with its owner's membership.
type NewProject struct {
	Name, Description, OwnerID, OwnerEmail string
	KeyHash                                []byte
	KeyPrefix                              string
}

// Session is one sign-in's token hashes and lifetimes.
type Session struct {
	ID              string
	UserID          string
	AccessHash      []byte
	AccessExpiresAt time.Time
	RefreshHash     []byte
	ExpiresAt       time.Time
	RememberMe      bool
}

// Register creates the user, their consents, their default project with its
// owner membership, and their first session, all or nothing.
func (db *DB) Register(ctx context.Context, u User, consents []Consent, p NewProject, s Session) (User, Project, error) {
	var proj Project
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		u.ID = uuid.NewString()
		if err := tx.QueryRow(ctx, `INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4)
			RETURNING created_at`, u.ID, u.Email, u.Name, u.PasswordHash).Scan(&u.CreatedAt); err != nil {
			return translate(err, "an account with this e-mail")
		}
		for _, c := range consents {
			if _, err := tx.Exec(ctx, `INSERT INTO consents (user_id, document, version, ip, user_agent)
				VALUES ($1, $2, $3, $4, $5)`, u.ID, c.Document, c.Version, c.IP, c.UserAgent); err != nil {
				return translate(err, "consent")
			}
		}
		if err := linkInvitations(ctx, tx, u.ID, u.Email); err != nil {
			return err
		}
		p.OwnerID, p.OwnerEmail = u.ID, u.Email
		var err error
		if proj, err = createProject(ctx, tx, p); err != nil {
			return err
		}
		s.UserID = u.ID
		return createSession(ctx, tx, s)
	})
	return u, proj, err
}

// UserByEmail finds an account by e-mail, case-insensitively.
func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := db.Pool.QueryRow(ctx, `SELECT id, email, name, password_hash, email_verified, created_at, last_active_at
		FROM users WHERE email = $1`, email).
		Scan(&u.ID, &u.Email, &u.Name, &u.PasswordHash, &u.EmailVerified, &u.CreatedAt, &u.LastActiveAt)
	return u, translate(err, "user")
}

// UserByID finds an account by id.
func (db *DB) UserByID(ctx context.Context, id string) (User, error) {
	var u User
	err := db.Pool.QueryRow(ctx, `SELECT id, email, name, password_hash, email_verified, created_at, last_active_at
		FROM users WHERE id = $1`, id).
		Scan(&u.ID, &u.Email, &u.Name, &u.PasswordHash, &u.EmailVerified, &u.CreatedAt, &u.LastActiveAt)
	return u, translate(err, "user")
}

// SetPasswordHash replaces a user's password hash (e.g. a re-hash at login).
func (db *DB) SetPasswordHash(ctx context.Context, userID, hash string) error {
	_, err := db.Pool.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1`, userID, hash)
	return translate(err, "user")
}

// CreateSession stores a new sign-in.
func (db *DB) CreateSession(ctx context.Context, s Session) error {
	return createSession(ctx, db.Pool, s)
}

// querier is what both the pool and a transaction offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func createSession(ctx context.Context, q querier, s Session) error {
	if s.ID == "" {
		s.ID = uuid.NewString()
	}
	_, err := q.Exec(ctx, `INSERT INTO sessions (id, user_id, access_hash, access_expires_at, refresh_hash, expires_at, remember_me)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, s.ID, s.UserID, s.AccessHash, s.AccessExpiresAt, s.RefreshHash, s.ExpiresAt, s.RememberMe)
	return translate(err, "session")
}

// SessionUser resolves a live access token hash to its user id and session
// id; an unknown, expired or revoked token is unauthorized.
func (db *DB) SessionUser(ctx context.Context, accessHash []byte, now time.Time) (userID, sessionID string, err error) {
	err = db.quickPool().QueryRow(ctx, `SELECT user_id, id FROM sessions
		WHERE access_hash = $1 AND revoked_at IS NULL AND access_expires_at > $2 AND expires_at > $2`,
		accessHash, now).Scan(&userID, &sessionID)
	if err == pgx.ErrNoRows {
		return "", "", apierr.New(apierr.Unauthorized, "invalid or expired access token")
	}
	return userID, sessionID, translate(err, "session")
}

// CreateProject creates a project and its owner's accepted admin membership.
func (db *DB) CreateProject(ctx context.Context, p NewProject) (Project, error) {
	var proj Project
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var err error
		proj, err = createProject(ctx, tx, p)
		return err
	})
	return proj, err
}

func createProject(ctx context.Context, tx pgx.Tx, p NewProject) (Project, error) {
	proj := Project{ID: uuid.NewString(), Name: p.Name, Description: p.Description, OwnerID: p.OwnerID,
		IsActive: true, KeyPrefix: p.KeyPrefix}
	if err := tx.QueryRow(ctx, `INSERT INTO projects (id, name, description, owner_id, key_hash, key_prefix)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at, updated_at`,
		proj.ID, p.Name, p.Description, p.OwnerID, p.KeyHash, p.KeyPrefix).Scan(&proj.CreatedAt, &proj.UpdatedAt); err != nil {
		return proj, translate(err, "project")
	}
	_, err := tx.Exec(ctx, `INSERT INTO memberships (id, project_id, user_id, email, role, is_owner, accepted_at)
		VALUES ($1, $2, $3, $4, 'admin', true, now())`, uuid.NewString(), proj.ID, p.OwnerID, p.OwnerEmail)
	return proj, translate(err, "membership")
}

const projectCols = `id, name, description, owner_id, is_active, key_prefix, created_at, updated_at`

func scanProject(row pgx.Row) (Project, error) {
	var p Project
	err := row.Scan(&p.ID, &p.Name, &p.Description, &p.OwnerID, &p.IsActive, &p.KeyPrefix, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

// ProjectByID returns a project.
func (db *DB) ProjectByID(ctx context.Context, id string) (Project, error) {
	p, err := scanProject(db.Pool.QueryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE id = $1 AND deleted_at IS NULL`, id))
	return p, translate(err, "project")
}

// MemberRole returns a user's accepted role in a project; not a member (or
// only invited) is not_found, so another project's existence is not revealed.
func (db *DB) MemberRole(ctx context.Context, projectID, userID string) (role string, owner bool, err error) {
	err = db.Pool.QueryRow(ctx, `SELECT role, is_owner FROM memberships
		WHERE project_id = $1 AND user_id = $2 AND accepted_at IS NOT NULL`, projectID, userID).Scan(&role, &owner)
	return role, owner, translate(err, "project")
}
