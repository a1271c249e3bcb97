package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
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

// Statement is one SQL text the store sends, with sample arguments.
type Statement struct {
	SQL  string
	Args pgx.StrictNamedArgs
}

// ReportStatements are every text of the report reads (each dimension,
// filter and grouping, the session read, /full's two), with arguments of a
// 90-day window of project: tests EXPLAIN each.
func ReportStatements(project string, now time.Time) map[string]Statement {
	segs := analytics.Decompose(analytics.Span{Start: now.Add(-90 * 24 * time.Hour), End: now}, analytics.Day)
	// Every call unmerged, over the whole window: the widest tail read.
	all := tail{span: segs.Rolled()}
	out := map[string]Statement{}
	for v, sql := range windowSQLs {
		args := windowArgs(project, "", segs, all)
		args["dim"] = v.dim
		if v.filtered {
			args["agent"] = "a1"
		}
		if v.tag != noTag {
			delete(args, "agent")
			args["tag"], args["max_tag_values"] = "team", int32(MaxTagValues)
			if v.tag == tagFilter {
				args["tag_value"] = "payments"
			} else {
				args["dim"] = "tag.team"
			}
		}
		switch v.report {
		case "by_key.sql":
			args["limit"] = int64(10)
		case "by_bucket.sql", "by_key_bucket.sql":
			args["bucket_secs"] = 3600.0
		}
		out[fmt.Sprintf("%s %s filtered=%v perAgent=%v tag=%d", v.report, v.dim, v.filtered, v.perAgent, v.tag)] = Statement{sql, args}
	}
	args := windowArgs(project, "", segs, all)
	args["dim"], args["limit"] = "session", int64(10)
	out["session_top.sql"] = Statement{sessionTopSQL, args}
	args = windowArgs(project, "", segs, all)
	args["dims"] = []string{"agent", "model"}
	out["full.sql keys"] = Statement{fullKeysSQL, args}
	args = windowArgs(project, "", segs, all)
	args["dims"], args["bucket_secs"] = []string{"agent", "model"}, 86400.0
	out["full.sql"] = Statement{fullSQL, args}
	return out
}

// PurgeChunkPlan is the plan (EXPLAIN, not run) of a purge chunk of
// project in table, a table or partition the purge walks in key order,
// after the key after (nil: from the first), under the chunk's settings:
// tests check how a chunk finds its rows.
func (db *DB) PurgeChunkPlan(ctx context.Context, table, project string, after []string) (string, error) {
	tables, err := db.purgeTables(ctx)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(tables, func(t purgeTable) bool { return t.name == table })
	if i < 0 || len(tables[i].keys) == 0 {
		return "", fmt.Errorf("%s: not a table the purge walks by key", table)
	}
	args := []any{project}
	if after != nil {
		args = append(args, after)
	}
	var plan []string
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, purgeChunkSettings); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "EXPLAIN "+tables[i].chunkSQL(after != nil, DefaultPurgeChunk), args...)
		if err == nil {
			plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		return err
	})
	return strings.Join(plan, "\n"), err
}
