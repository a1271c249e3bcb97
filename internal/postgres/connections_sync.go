package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/providers"
)

// Never is the next attempt of a failed connection: it waits for a new key
// or a sync asked for.
var Never = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// ClaimDueConnections takes up to limit connections due for a sync and
// holds each for lease: another instance skips them until the lease ends
// or the sync records its outcome. Failed connections are due only when a
// sync is asked for.
func (db *DB) ClaimDueConnections(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Connection, error) {
	rows, err := db.Pool.Query(ctx, `WITH due AS (
    SELECT project_id, provider FROM provider_connections
    WHERE next_attempt_at <= @now AND lease_until < @now
    ORDER BY next_attempt_at LIMIT @limit FOR UPDATE SKIP LOCKED)
UPDATE provider_connections c SET lease_until = @now + make_interval(secs => @lease_secs)
FROM due WHERE c.project_id = due.project_id AND c.provider = due.provider
RETURNING `+connectionColumns, settleArgs(pgx.StrictNamedArgs{"now": now, "limit": limit, "lease_secs": lease.Seconds()}))
	if err != nil {
		return nil, translate(err, "connections")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Connection, error) { return scanConnection(r) })
	return out, translate(err, "connections")
}

type usageKey struct {
	day         time.Time
	model, tier string
}

type costKey struct {
	day                time.Time
	model, class, tier string
}

// StoreSync replaces the days [rep.From, rep.To) of the connection's
// fetched reports with rep, in one transaction, and records a successful
// sync at now; the next is due at next. Rows the provider split further
// (context windows, workspaces) are summed.
func (db *DB) StoreSync(ctx context.Context, c Connection, rep providers.Report, now, next time.Time) error {
	usage := map[usageKey]*providers.Usage{}
	var uorder []usageKey
	for _, u := range rep.Usage {
		k := usageKey{u.Day, u.Model, u.Tier}
		if usage[k] == nil {
			usage[k] = &providers.Usage{Day: u.Day, Model: u.Model, Tier: u.Tier}
			uorder = append(uorder, k)
		}
		usage[k].Tokens = usage[k].Tokens.Add(u.Tokens)
		usage[k].Requests += u.Requests
	}
	costs := map[costKey]int64{}
	var corder []costKey
	for _, x := range rep.Costs {
		k := costKey{x.Day, x.Model, x.Class, x.Tier}
		if _, ok := costs[k]; !ok {
			corder = append(corder, k)
		}
		costs[k] += x.Nano
	}
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		for _, table := range []string{"provider_usage", "provider_costs", "provider_days"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE project_id = $1 AND provider = $2
AND day >= $3::date AND day < $4::date`, c.ProjectID, c.Provider, rep.From, rep.To); err != nil {
				return err
			}
		}
		b := &pgx.Batch{}
		for _, k := range uorder {
			u := usage[k]
			b.Queue(`INSERT INTO provider_usage VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				c.ProjectID, c.Provider, k.day, k.model, k.tier, u.Tokens.Input, u.Tokens.CacheRead,
				u.Tokens.CacheWrite5m, u.Tokens.CacheWrite1h, u.Tokens.Output, u.Requests)
		}
		for _, k := range corder {
			b.Queue(`INSERT INTO provider_costs VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				c.ProjectID, c.Provider, k.day, k.model, k.class, k.tier, costs[k])
		}
		for d := rep.From; d.Before(rep.To); d = d.AddDate(0, 0, 1) {
			b.Queue(`INSERT INTO provider_days VALUES ($1, $2, $3, $4, $5)`, c.ProjectID, c.Provider, d, now, !rep.NoCosts)
		}
		b.Queue(`UPDATE provider_connections SET sync_status = 'ok', last_sync_at = $3, last_sync_error = NULL,
    failures = 0, next_attempt_at = $4, lease_until = 'epoch' WHERE project_id = $1 AND provider = $2`,
			c.ProjectID, c.Provider, now, next)
		return tx.SendBatch(ctx, b).Close()
	})
	return translate(err, "provider report")
}

// RecordSyncFailure records a failed sync: status retrying (next is when)
// or failed (nothing more until the key changes or a sync is asked for),
// with a message for the API to show. last_sync_at keeps the last
// successful sync: the age of the data the report shows.
func (db *DB) RecordSyncFailure(ctx context.Context, c Connection, status, message string, next time.Time) error {
	_, err := db.Pool.Exec(ctx, `UPDATE provider_connections SET sync_status = $3, last_sync_error = $4,
    failures = failures + 1, next_attempt_at = $5, lease_until = 'epoch'
WHERE project_id = $1 AND provider = $2`, c.ProjectID, c.Provider, status, message, next)
	return translate(err, "connection")
}
