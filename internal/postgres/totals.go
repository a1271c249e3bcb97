package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Each stored call's weight in project_totals (migration 0026): money is
// the largest of its money columns, so that the sum of any one of them over
// any of the project's calls is below the project's money total; tokens
// are input + output + total, above any token column's sum and above
// input + output. Both are computed from bounded columns of one row and
// fit a bigint; their sums are numeric.
const (
	callMoney  = `greatest(cost_nano, coalesce(catalogue_cost_nano, 0), read_savings_nano, write_premium_nano)`
	callTokens = `input_tokens + output_tokens + total_tokens`
)

// totalsUpsert adds the batch's stored calls (ev, which returns money,
// tokens and latency_ms) to their projects' totals in the ingest
// statement; project_totals_bound refuses the statement when a total would
// pass pricing.MaxProjectTotal (boundError turns that into a 422), so no
// sum of a project's calls can overflow an int64. Rows are upserted in key
// order, like spend_month's.
const totalsUpsert = `, pt AS (
  INSERT INTO project_totals AS t (project_id, money_nano, tokens, latency_ms)
  SELECT project_id, sum(money), sum(tokens), sum(coalesce(latency_ms, 0)) FROM ev GROUP BY 1 ORDER BY 1
  ON CONFLICT (project_id) DO UPDATE SET money_nano = t.money_nano + excluded.money_nano,
    tokens = t.tokens + excluded.tokens, latency_ms = t.latency_ms + excluded.latency_ms
)`

// boundError is the refusal of a statement that would take a project's
// totals past their bound, or nil when err is something else.
func boundError(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != "project_totals_bound" {
		return nil
	}
	return apierr.Wrap(err, apierr.ValidationFailed, fmt.Sprintf(
		"the project's calls would sum beyond llmcost's bound of %d nano-USD (about %s USD), tokens or milliseconds over its life; nothing was stored",
		pricing.MaxProjectTotal, pricing.FormatUSD(pricing.MaxProjectTotal))).
		WithHint("no real project reaches this: look for a client sending absurd calls; docs/api.md (Bounds) says how an operator repairs the project")
}

// totalsRecompute sets a project's totals and month counters from the
// events it holds, in three statements (one statement cannot delete a
// counter row and insert it again).
var totalsRecompute = []string{`INSERT INTO project_totals AS t (project_id, money_nano, tokens, latency_ms)
  SELECT $1::uuid, coalesce(sum(` + callMoney + `), 0), coalesce(sum(` + callTokens + `), 0),
    coalesce(sum(coalesce(latency_ms, 0)), 0)
  FROM events WHERE project_id = $1
  ON CONFLICT (project_id) DO UPDATE SET money_nano = excluded.money_nano, tokens = excluded.tokens,
    latency_ms = excluded.latency_ms`,
	`DELETE FROM spend_month WHERE project_id = $1`,
	`INSERT INTO spend_month (project_id, month, metered_nano)
  SELECT project_id, (date_trunc('month', ts, 'UTC') AT TIME ZONE 'UTC')::date, sum(cost_nano)::bigint
  FROM events WHERE project_id = $1 AND billing <> 'subscription' GROUP BY 1, 2`,
	`DELETE FROM bounds_repairs WHERE project_id = $1`,
}

// RepairBounds repairs the projects listed in bounds_repairs (migration
// 0026 lists those whose calls beyond the bounds it moved to
// events_refused; an operator lists one after deleting calls by hand):
// their rollups and runs are rebuilt from the events that remain and their
// totals and month counters recomputed. It answers how many projects it
// repaired; a project is unlisted once repaired. Like RebuildRuns it must
// not run while the project ingests: llmcost calls it at start.
func (db *DB) RepairBounds(ctx context.Context) (int, error) {
	rows, err := db.Pool.Query(ctx, `SELECT project_id::text FROM bounds_repairs ORDER BY 1`)
	if err != nil {
		return 0, translate(err, "bounds repair")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, translate(err, "bounds repair")
	}
	for i, id := range ids {
		if err := db.RebuildRollups(ctx, id); err != nil {
			return i, err
		}
		if err := db.RebuildRuns(ctx, id); err != nil {
			return i, err
		}
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			for _, sql := range totalsRecompute {
				if _, err := tx.Exec(ctx, sql, id); err != nil {
					return err
				}
			}
			return nil
		})
		db.dropBudgets() // the month counters were recomputed
		if err != nil {
			return i, translate(err, "bounds repair")
		}
	}
	return len(ids), nil
}
