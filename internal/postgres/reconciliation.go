package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/reconcile"
)

// ProviderReports are the fetched reports of a project's connections for
// the days [from, to).
type ProviderReports struct {
	Days  []reconcile.FetchedDay
	Usage []reconcile.ProviderUsage
	Costs []reconcile.ProviderCost
}

// ProviderReports reads what the syncs stored for the days [from, to).
func (db *DB) ProviderReports(ctx context.Context, projectID string, from, to time.Time) (ProviderReports, error) {
	var out ProviderReports
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT provider, day::timestamp AT TIME ZONE 'UTC', fetched_at, costs FROM provider_days
WHERE project_id = $1 AND day >= $2::date AND day < $3::date ORDER BY day, provider`, projectID, from, to)
			if err != nil {
				return err
			}
			if out.Days, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (reconcile.FetchedDay, error) {
				var d reconcile.FetchedDay
				return d, r.Scan(&d.Provider, &d.Day, &d.FetchedAt, &d.Costs)
			}); err != nil {
				return err
			}
			rows, err = tx.Query(ctx, `SELECT provider, day::timestamp AT TIME ZONE 'UTC', model, service_tier, input_tokens, cache_read,
    cache_write_5m, cache_write_1h, output_tokens, requests FROM provider_usage
WHERE project_id = $1 AND day >= $2::date AND day < $3::date`, projectID, from, to)
			if err != nil {
				return err
			}
			if out.Usage, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (reconcile.ProviderUsage, error) {
				var u reconcile.ProviderUsage
				t := &u.Tokens
				return u, r.Scan(&u.Provider, &u.Day, &u.Model, &u.Tier, &t.Input, &t.CacheRead, &t.CacheWrite5m,
					&t.CacheWrite1h, &t.Output, &u.Requests)
			}); err != nil {
				return err
			}
			rows, err = tx.Query(ctx, `SELECT provider, day::timestamp AT TIME ZONE 'UTC', model, token_class, service_tier, cost_nano
FROM provider_costs WHERE project_id = $1 AND day >= $2::date AND day < $3::date`, projectID, from, to)
			if err != nil {
				return err
			}
			out.Costs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (reconcile.ProviderCost, error) {
				var c reconcile.ProviderCost
				return c, r.Scan(&c.Provider, &c.Day, &c.Model, &c.Class, &c.Tier, &c.Nano)
			})
			return err
		})
	return out, translate(err, "provider reports")
}

// CallDays sums the project's calls of [from, to) by UTC day, model and
// billing. It reads the raw calls (the rollups do not keep the token
// classes apart), over the project's time index.
func (db *DB) CallDays(ctx context.Context, projectID string, from, to time.Time) ([]reconcile.CallDay, error) {
	rows, err := db.Pool.Query(ctx, `SELECT date_trunc('day', ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', model,
    billing = 'subscription',
    sum(greatest(input_tokens - cached_tokens - cache_write_tokens - cache_write_1h_tokens, 0))::bigint,
    sum(cached_tokens)::bigint, sum(cache_write_tokens)::bigint, sum(cache_write_1h_tokens)::bigint,
    sum(output_tokens)::bigint, sum(cost_nano)::bigint, count(*), count(*) FILTER (WHERE NOT priced)
FROM events WHERE project_id = $1 AND ts >= $2 AND ts < $3
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, projectID, from, to)
	if err != nil {
		return nil, translate(err, "calls")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (reconcile.CallDay, error) {
		var c reconcile.CallDay
		t := &c.Tokens
		return c, r.Scan(&c.Day, &c.Model, &c.Subscription, &t.Input, &t.CacheRead, &t.CacheWrite5m, &t.CacheWrite1h,
			&t.Output, &c.CostNano, &c.Calls, &c.UnpricedCalls)
	})
	return out, translate(err, "calls")
}
