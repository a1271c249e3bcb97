package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Budget is a project's monthly budget.
type Budget struct {
	Enabled    bool
	Mode       string // warn or hard_cap
	BudgetNano int64
	Thresholds []int32 // percents, ascending
}

// PutBudget sets the project's budget.
func (db *DB) PutBudget(ctx context.Context, projectID string, b Budget) error {
	_, err := db.Pool.Exec(ctx, `WITH `+bumpPolicy+`
INSERT INTO budgets (project_id, enabled, mode, budget_nano, thresholds) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (project_id) DO UPDATE SET enabled = excluded.enabled, mode = excluded.mode,
    budget_nano = excluded.budget_nano, thresholds = excluded.thresholds, updated_at = now()`,
		projectID, b.Enabled, b.Mode, b.BudgetNano, b.Thresholds)
	db.dropBudgets()
	return translate(err, "budget")
}

func readBudget(ctx context.Context, q txQuerier, projectID string) (*Budget, error) {
	var b Budget
	err := q.QueryRow(ctx, `SELECT enabled, mode, budget_nano, thresholds FROM budgets WHERE project_id = $1`,
		projectID).Scan(&b.Enabled, &b.Mode, &b.BudgetNano, &b.Thresholds)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &b, err
}

// MonthStart is the first instant of t's UTC month.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// BudgetRead is a project's budget (nil when none is set) and its metered
// spend in the month.
type BudgetRead struct {
	Budget    *Budget
	SpendNano int64
	// AsOf is when the rows were read, when answered from the cache
	// (CacheBudgets); zero when read for this call.
	AsOf time.Time
}

// budgetStateSQL reads two primary-key rows: the budget and the month's
// spend counter. Never events, whatever their number.
const budgetStateSQL = `SELECT b.enabled, b.mode, b.budget_nano, b.thresholds,
    coalesce((SELECT metered_nano FROM spend_month WHERE project_id = $1 AND month = $2), 0)
FROM (SELECT 1) one LEFT JOIN budgets b ON b.project_id = $1`

// BudgetState reads the budget and the metered spend of month (its first
// day).
func (db *DB) BudgetState(ctx context.Context, projectID string, month time.Time) (BudgetRead, error) {
	if db.budgets != nil {
		return db.budgets.budgetState(ctx, db, projectID, month)
	}
	return db.readBudgetState(ctx, projectID, month)
}

// readBudgetState reads the budget state's two rows.
func (db *DB) readBudgetState(ctx context.Context, projectID string, month time.Time) (BudgetRead, error) {
	var enabled *bool
	var mode *string
	var nano *int64
	var th []int32
	var out BudgetRead
	err := db.quickPool().QueryRow(ctx, budgetStateSQL, projectID, month).Scan(&enabled, &mode, &nano, &th, &out.SpendNano)
	if err != nil {
		return out, translate(err, "budget")
	}
	if enabled != nil {
		out.Budget = &Budget{Enabled: *enabled, Mode: *mode, BudgetNano: *nano, Thresholds: th}
	}
	return out, nil
}
