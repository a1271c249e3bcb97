package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/runs"
)

// WorkflowSums are one workflow's run figures (Workflow nil: runs with none).
type WorkflowSums struct {
	Workflow                                  *string
	Runs, CostNano, MaxCostNano, Calls, Steps int64
	MaxDepth, SuccessCalls                    int64
	// Runs by declared outcome (runs without one are the rest).
	Succeeded, Failed, SuccessCostNano, FailureCostNano int64
}

// WorkflowRows reads the workflow rows of the runs in the window, with
// their outcome counts.
func (db *DB) WorkflowRows(ctx context.Context, q RunQuery) ([]WorkflowSums, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	args := q.args()
	sql := fillSQL(mustQuery("workflow_rows.sql"), q.rollupParts(args, false))
	return collect(ctx, db, sql, func(r pgx.CollectableRow) (WorkflowSums, error) {
		var w WorkflowSums
		return w, r.Scan(&w.Workflow, &w.Runs, &w.CostNano, &w.MaxCostNano, &w.Calls, &w.Steps, &w.MaxDepth,
			&w.SuccessCalls, &w.Succeeded, &w.Failed, &w.SuccessCostNano, &w.FailureCostNano)
	}, args)
}

// GroupSums are one step's (Workflow, Name) or one tool's (Name) figures.
type GroupSums struct {
	Workflow                            *string
	Name                                string
	Calls, Runs, CostNano, Tokens       int64
	LatencySum, LatencyCount, Successes int64
}

// StepRows reads the step rows (workflow of the run, step name).
func (db *DB) StepRows(ctx context.Context, q RunQuery) ([]GroupSums, error) {
	return db.groupRows(ctx, q, "run_step_day", "run_steps", "step_name", true)
}

// ToolRows reads the tool rows: without a workflow filter, whole days come
// from the rows over every workflow (run_tool_all_day), one per tool and day.
func (db *DB) ToolRows(ctx context.Context, q RunQuery) ([]GroupSums, error) {
	if !q.HasWorkflow {
		return db.groupRows(ctx, q, "run_tool_all_day", "run_tools", "tool_name", false)
	}
	return db.groupRows(ctx, q, "run_tool_day", "run_tools", "tool_name", false)
}

// groupRows reads step or tool sums: whole days from rollup, the edges from
// the runs' per-run rows (table, column name); by workflow too when byWorkflow.
func (db *DB) groupRows(ctx context.Context, q RunQuery, rollup, table, name string, byWorkflow bool) ([]GroupSums, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	args := q.args()
	parts := q.rollupParts(args, false)
	q.childEdges(parts, table)
	parts["rollup"], parts["name"] = rollup, name
	if !byWorkflow {
		parts["workflow"], parts["grouping"], parts["order"] = "NULL::text", "name", `name COLLATE "C"`
	}
	if rollup == "run_tool_all_day" {
		parts["rollup_workflow"] = "''::text" // rows over every workflow
	}
	sql := fillSQL(mustQuery("run_group_rows.sql"), parts)
	return collect(ctx, db, sql, scanGroup, args)
}

func scanGroup(r pgx.CollectableRow) (GroupSums, error) {
	var g GroupSums
	return g, r.Scan(&g.Workflow, &g.Name, &g.CostNano, &g.Calls, &g.Runs, &g.Tokens, &g.LatencySum,
		&g.LatencyCount, &g.Successes)
}

// RepeatRow is one group of identical calls of one run.
type RepeatRow struct {
	TraceID                            string
	Workflow, StepName, ToolName       *string
	Model                              string
	Occurrences, SpendNano, WastedNano int64
	FirstSeen                          time.Time
}

// RepeatRows reads the repeated-work rows, most wasted first: the groups
// carry their run's first call time, agent and workflow, so the read walks
// run_repeats_wasted_idx and stops at the limit.
func (db *DB) RepeatRows(ctx context.Context, q RunQuery) ([]RepeatRow, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	args := q.args()
	sql := fillSQL(mustQuery("repeat_rows.sql"), q.runsWhere(repeatsCols, args))
	return collect(ctx, db, sql, func(r pgx.CollectableRow) (RepeatRow, error) {
		var x RepeatRow
		err := r.Scan(&x.TraceID, &x.Workflow, &x.StepName, &x.ToolName, &x.Model, &x.Occurrences, &x.SpendNano,
			&x.WastedNano, &x.FirstSeen)
		x.FirstSeen = x.FirstSeen.UTC()
		return x, err
	}, args)
}

// TopWorkflow is the window's highest-spend workflow (cost, then name);
// ok is false when no run in the window has a workflow.
func (db *DB) TopWorkflow(ctx context.Context, q RunQuery) (string, bool, error) {
	q.Limit = 0
	rows, err := db.WorkflowRows(ctx, q)
	if err != nil {
		return "", false, err
	}
	for _, w := range rows {
		if w.Workflow != nil {
			return *w.Workflow, true, nil
		}
	}
	return "", false, nil
}

// RunCosts reads the cost of the newest Limit runs of the window (Limit +
// 1 tells the caller there were more).
func (db *DB) RunCosts(ctx context.Context, q RunQuery) ([]int64, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	args := q.args()
	sql := fillSQL(mustQuery("run_costs.sql"), q.runsWhere(runsCols, args))
	return collect(ctx, db, sql, pgx.RowTo[int64], args)
}

// RunRow is one run's totals.
type RunRow struct {
	TraceID                                string
	Workflow                               *string
	Calls, CostNano, MaxDepth, FailedCalls int64
	FirstTS, LastEnd                       time.Time
}

// TraceRows reads the most expensive runs of the window (trace_rows.sql:
// the window's runs sorted whole when it holds at most 2,000, the cost
// index walked otherwise).
func (db *DB) TraceRows(ctx context.Context, q RunQuery) ([]RunRow, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	args := q.args()
	sql := fillSQL(mustQuery("trace_rows.sql"), q.runsWhere(runsCols, args))
	return collect(ctx, db, sql, func(r pgx.CollectableRow) (RunRow, error) {
		var x RunRow
		err := r.Scan(&x.TraceID, &x.Workflow, &x.Calls, &x.CostNano, &x.MaxDepth, &x.FailedCalls, &x.FirstTS,
			&x.LastEnd)
		x.FirstTS, x.LastEnd = x.FirstTS.UTC(), x.LastEnd.UTC()
		return x, err
	}, args)
}

// collect runs sql with args (named ones as one pgx.StrictNamedArgs) and
// scans every row.
func collect[T any](ctx context.Context, db *DB, sql string, scan pgx.RowToFunc[T], args ...any) ([]T, error) {
	var out []T
	err := db.onReader(ctx, func(pool *pgxpool.Pool) error {
		rows, err := pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scan)
		return err
	})
	if err != nil {
		return nil, translate(err, "runs")
	}
	return out, nil
}

// Outcome is a run's declared outcome.
type Outcome struct {
	Success    bool
	Label      *string
	RecordedAt time.Time
}

// Trace is one run as its detail shows it: Run is nil for a run that has
// only an outcome, Outcome nil when none was declared.
type Trace struct {
	Run     *runs.Run
	Outcome *Outcome
}

// ReadTrace reads one run's calls and outcome in one snapshot; a trace
// with neither in the project is 404.
func (db *DB) ReadTrace(ctx context.Context, projectID, traceID string) (Trace, error) {
	var tr Trace
	err := db.snapshotOnReader(ctx, func(tx pgx.Tx) error {
		tr = Trace{}
		built, err := readRuns(ctx, tx, runCallsSQL, []string{projectID}, []string{traceID})
		if err != nil {
			return err
		}
		if len(built) == 1 {
			tr.Run = &built[0].Run
		}
		tr.Outcome, err = readOutcome(ctx, tx, projectID, traceID)
		return err
	})
	if err != nil {
		return Trace{}, translate(err, "trace")
	}
	if tr.Run == nil && tr.Outcome == nil {
		return Trace{}, apierr.Newf(apierr.NotFound, "trace %q not found in this project", traceID)
	}
	return tr, nil
}

// readOutcome reads the outcome declared for a run, nil when none was.
func readOutcome(ctx context.Context, tx pgx.Tx, projectID, traceID string) (*Outcome, error) {
	var o Outcome
	err := tx.QueryRow(ctx, `SELECT success, label, recorded_at FROM outcomes
WHERE project_id = $1 AND trace_id = $2`, projectID, traceID).Scan(&o.Success, &o.Label, &o.RecordedAt)
	switch {
	case err == nil:
		o.RecordedAt = o.RecordedAt.UTC()
		return &o, nil
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	}
	return nil, err
}
