package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Sync states of a provider connection.
const (
	SyncPending  = "pending"
	SyncOK       = "ok"
	SyncRetrying = "retrying"
	SyncFailed   = "failed"
)

// Connection is a project's link to a provider organisation. KeySealed is
// the admin key as secretbox sealed it; the plain key is never stored.
type Connection struct {
	ProjectID, Provider string
	KeySealed           []byte
	KeyHint             string
	WorkspaceIDs        []string
	ProjectIDs          []string
	APIKeyIDs           []string
	BackfillDays        int
	ToleranceBP         int // hundredths of a percent
	CreatedAt           time.Time
	UpdatedAt           time.Time
	SyncStatus          string
	LastSyncAt          *time.Time
	LastSyncError       *string
	Failures            int
	NextAttemptAt       time.Time
	// Synced is whether any day has been fetched yet (no: back-fill);
	// Unsettled is the oldest fetched day not final yet (nil: none).
	Synced    bool
	Unsettled *time.Time
}

// sameScope reports whether two connections read the same share of the
// bill with the same key.
func sameScope(a, b Connection) bool {
	return slices.Equal(a.KeySealed, b.KeySealed) && slices.Equal(a.WorkspaceIDs, b.WorkspaceIDs) &&
		slices.Equal(a.ProjectIDs, b.ProjectIDs) && slices.Equal(a.APIKeyIDs, b.APIKeyIDs)
}

// connectionColumns are the columns scanConnection reads (alias c); the
// statement names @settle_secs, SettleAfter in seconds (settleArgs).
const connectionColumns = `c.project_id, c.provider, c.key_sealed, c.key_hint, c.workspace_ids, c.project_ids,
    c.api_key_ids, c.backfill_days, c.tolerance_bp, c.created_at, c.updated_at, c.sync_status, c.last_sync_at,
    c.last_sync_error, c.failures, c.next_attempt_at,
    EXISTS (SELECT 1 FROM provider_days d WHERE d.project_id = c.project_id AND d.provider = c.provider),
    (SELECT min(day)::timestamp AT TIME ZONE 'UTC' FROM provider_days d
     WHERE d.project_id = c.project_id AND d.provider = c.provider
        AND d.fetched_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC' + make_interval(secs => @settle_secs))`

// Days are UTC days: every conversion between a day and an instant names
// UTC, so the session's time zone never shifts one.

func scanConnection(row pgx.Row) (Connection, error) {
	var c Connection
	err := row.Scan(&c.ProjectID, &c.Provider, &c.KeySealed, &c.KeyHint, &c.WorkspaceIDs, &c.ProjectIDs, &c.APIKeyIDs,
		&c.BackfillDays, &c.ToleranceBP, &c.CreatedAt, &c.UpdatedAt, &c.SyncStatus, &c.LastSyncAt, &c.LastSyncError,
		&c.Failures, &c.NextAttemptAt, &c.Synced, &c.Unsettled)
	return c, err
}

// SettleAfter is how long after a day ends the providers' reports of it
// are taken as final: usage appears within minutes, but costs are
// finalised later, so a day fetched sooner is shown as not final and
// fetched again by the next sync.
const SettleAfter = 24 * time.Hour

// settleArgs are args and @settle_secs, for a statement reading
// connectionColumns.
func settleArgs(args pgx.StrictNamedArgs) pgx.StrictNamedArgs {
	args["settle_secs"] = SettleAfter.Seconds()
	return args
}

// Connections lists the project's connections, by provider.
func (db *DB) Connections(ctx context.Context, projectID string) ([]Connection, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+connectionColumns+` FROM provider_connections c
WHERE project_id = @project_id ORDER BY provider`, settleArgs(pgx.StrictNamedArgs{"project_id": projectID}))
	if err != nil {
		return nil, translate(err, "connections")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Connection, error) { return scanConnection(r) })
	return out, translate(err, "connections")
}

// Connection reads one connection; a missing one is not_found.
func (db *DB) Connection(ctx context.Context, projectID, provider string) (Connection, error) {
	c, err := scanConnection(db.Pool.QueryRow(ctx, `SELECT `+connectionColumns+` FROM provider_connections c
WHERE project_id = @project_id AND provider = @provider`,
		settleArgs(pgx.StrictNamedArgs{"project_id": projectID, "provider": provider})))
	return c, translate(err, "connection")
}

// PutConnection creates or replaces a connection. A nil KeySealed keeps
// the stored key (and is not_found when there is none). A new key or
// scope drops what was fetched with the old one and starts over with a
// back-fill (restarted); changing only the back-fill or tolerance keeps it.
func (db *DB) PutConnection(ctx context.Context, c Connection) (created, restarted bool, err error) {
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		old, err := scanConnection(tx.QueryRow(ctx, `SELECT `+connectionColumns+` FROM provider_connections c
WHERE project_id = @project_id AND provider = @provider FOR UPDATE`,
			settleArgs(pgx.StrictNamedArgs{"project_id": c.ProjectID, "provider": c.Provider})))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if c.KeySealed == nil {
				return apierr.Field("admin_key", "is required: this provider is not connected yet")
			}
			created = true
		case err != nil:
			return err
		case c.KeySealed == nil:
			c.KeySealed, c.KeyHint = old.KeySealed, old.KeyHint
		}
		restarted = created || !sameScope(old, c)
		if restarted && !created {
			if err := dropFetched(ctx, tx, c.ProjectID, c.Provider); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO provider_connections (project_id, provider, key_sealed, key_hint,
    workspace_ids, project_ids, api_key_ids, backfill_days, tolerance_bp)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (project_id, provider) DO UPDATE SET key_sealed = excluded.key_sealed, key_hint = excluded.key_hint,
    workspace_ids = excluded.workspace_ids, project_ids = excluded.project_ids, api_key_ids = excluded.api_key_ids,
    backfill_days = excluded.backfill_days, tolerance_bp = excluded.tolerance_bp, updated_at = now(),
    sync_status = CASE WHEN $10 THEN 'pending' ELSE provider_connections.sync_status END,
    last_sync_error = CASE WHEN $10 THEN NULL ELSE provider_connections.last_sync_error END,
    failures = CASE WHEN $10 THEN 0 ELSE provider_connections.failures END,
    next_attempt_at = CASE WHEN $10 THEN 'epoch' ELSE provider_connections.next_attempt_at END`,
			c.ProjectID, c.Provider, c.KeySealed, c.KeyHint, nonNil(c.WorkspaceIDs), nonNil(c.ProjectIDs),
			nonNil(c.APIKeyIDs), c.BackfillDays, c.ToleranceBP, restarted)
		return err
	})
	var domain *apierr.Error
	if errors.As(err, &domain) {
		return false, false, err // a refusal of the input, not a database failure
	}
	return created, restarted, translate(err, "connection")
}

func dropFetched(ctx context.Context, tx pgx.Tx, projectID, provider string) error {
	for _, table := range []string{"provider_usage", "provider_costs", "provider_days"} {
		if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE project_id = $1 AND provider = $2`, projectID, provider); err != nil {
			return err
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// DeleteConnection removes a connection and everything fetched with it.
func (db *DB) DeleteConnection(ctx context.Context, projectID, provider string) error {
	tag, err := db.Pool.Exec(ctx, `DELETE FROM provider_connections WHERE project_id = $1 AND provider = $2`,
		projectID, provider)
	if err == nil && tag.RowsAffected() == 0 {
		return apierr.New(apierr.NotFound, "this provider is not connected")
	}
	return translate(err, "connection")
}

// RequestSync makes the connection due now, a failed one included (the
// dashboard's "sync now" after fixing the key on the provider's side).
func (db *DB) RequestSync(ctx context.Context, projectID, provider string) error {
	tag, err := db.Pool.Exec(ctx, `UPDATE provider_connections SET next_attempt_at = 'epoch'
WHERE project_id = $1 AND provider = $2`, projectID, provider)
	if err == nil && tag.RowsAffected() == 0 {
		return apierr.New(apierr.NotFound, "this provider is not connected")
	}
	return translate(err, "connection")
}
