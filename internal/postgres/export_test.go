package postgres

import "context"

// ToolRowsPerWorkflow reads the tool rows from the per-workflow day rows
// (run_tool_day), the read ToolRows replaced for reports over every
// workflow: tests compare the two.
func (db *DB) ToolRowsPerWorkflow(ctx context.Context, q RunQuery) ([]GroupSums, error) {
	return db.groupRows(ctx, q, "run_tool_day", "run_tools", "tool_name", false)
}
