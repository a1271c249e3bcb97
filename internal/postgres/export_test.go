package postgres

import (
	"context"
	"time"
)

// ToolRowsPerWorkflow reads the tool rows from the per-workflow day rows
// (run_tool_day), the read ToolRows replaced for reports over every
// workflow: tests compare the two.
func (db *DB) ToolRowsPerWorkflow(ctx context.Context, q RunQuery) ([]GroupSums, error) {
	return db.groupRows(ctx, q, "run_tool_day", "run_tools", "tool_name", false)
}

// Later queues a statement to be sent with the ingest transaction's
// COMMIT, as QueueAlerts does: tests make one fail.
func (w *WriteTx) Later(sql string, args ...any) { w.later(sql, args...) }

// SetBudgetClock sets the budget-state cache's clock (CacheBudgets first).
func (db *DB) SetBudgetClock(now func() time.Time) {
	db.budgets.mu.Lock()
	defer db.budgets.mu.Unlock()
	db.budgets.now = now
}
