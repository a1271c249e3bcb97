package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/runs"
)

// RunQuery selects the runs a run report reads: a project's runs whose
// first call lies in [Start, End), optionally of one agent (the agent of
// the run's first call) and of one workflow.
type RunQuery struct {
	ProjectID  string
	Start, End time.Time
	AgentName  string
	// Workflow narrows to one workflow when HasWorkflow.
	Workflow    string
	HasWorkflow bool
	// Limit caps an array after sorting.
	Limit int
}

// sql puts the WHERE of the query's runs (aliased r) into body at
// {{RUNS}}; $4 is the limit (NULL: all). The statement texts differ per
// filter so each gets its own plan.
func (q RunQuery) sql(body string) (string, []any) {
	var limit any
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	args := []any{q.ProjectID, q.Start, q.End, limit}
	where := "r.project_id = $1 AND r.first_ts >= $2 AND r.first_ts < $3"
	if q.AgentName != "" {
		args = append(args, q.AgentName)
		where += " AND r.agent_name = $5"
	}
	if q.HasWorkflow {
		args = append(args, q.Workflow)
		where += " AND r.workflow = $" + strconv.Itoa(len(args))
	}
	return strings.ReplaceAll(body, "{{RUNS}}", where), args
}

// WorkflowSums are one workflow's run figures (Workflow nil: runs with none).
type WorkflowSums struct {
	Workflow                                  *string
	Runs, CostNano, MaxCostNano, Calls, Steps int64
	MaxDepth, SuccessCalls                    int64
}

// workflowOrder sorts by cost descending, then workflow in byte order
// (no workflow sorts as the empty name).
const workflowOrder = `3 DESC, coalesce(r.workflow, '') COLLATE "C", r.workflow NULLS FIRST`

// WorkflowRows reads the workflow rows of the runs in the window.
func (db *DB) WorkflowRows(ctx context.Context, q RunQuery) ([]WorkflowSums, error) {
	sql, args := q.sql(`SELECT r.workflow, count(*), sum(r.cost_nano)::bigint, max(r.cost_nano), sum(r.calls)::bigint,
  sum(r.steps)::bigint, max(r.max_depth), sum(r.success_calls)::bigint
FROM runs r WHERE {{RUNS}} GROUP BY r.workflow ORDER BY ` + workflowOrder + ` LIMIT $4`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (WorkflowSums, error) {
		var w WorkflowSums
		return w, r.Scan(&w.Workflow, &w.Runs, &w.CostNano, &w.MaxCostNano, &w.Calls, &w.Steps, &w.MaxDepth,
			&w.SuccessCalls)
	})
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
	sql, args := q.sql(`SELECT r.workflow, s.step_name, sum(s.cost_nano)::bigint, sum(s.calls)::bigint, count(*),
  sum(s.tokens)::bigint, sum(s.latency_sum)::bigint, sum(s.latency_count)::bigint, sum(s.success_calls)::bigint
FROM runs r JOIN run_steps s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
WHERE {{RUNS}} GROUP BY r.workflow, s.step_name
ORDER BY ` + workflowOrder + `, s.step_name COLLATE "C" LIMIT $4`)
	return collect(ctx, db, sql, args, scanGroup)
}

// ToolRows reads the tool rows.
func (db *DB) ToolRows(ctx context.Context, q RunQuery) ([]GroupSums, error) {
	sql, args := q.sql(`SELECT NULL::text, s.tool_name, sum(s.cost_nano)::bigint, sum(s.calls)::bigint, count(*),
  sum(s.tokens)::bigint, sum(s.latency_sum)::bigint, sum(s.latency_count)::bigint, sum(s.success_calls)::bigint
FROM runs r JOIN run_tools s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
WHERE {{RUNS}} GROUP BY s.tool_name ORDER BY 3 DESC, s.tool_name COLLATE "C" LIMIT $4`)
	return collect(ctx, db, sql, args, scanGroup)
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

// RepeatRows reads the repeated-work rows, most wasted first.
func (db *DB) RepeatRows(ctx context.Context, q RunQuery) ([]RepeatRow, error) {
	sql, args := q.sql(`SELECT x.trace_id, x.workflow, x.step_name, x.tool_name, x.model, x.occurrences,
  x.spend_nano, x.wasted_nano, x.first_seen
FROM runs r JOIN run_repeats x ON x.project_id = r.project_id AND x.trace_id = r.trace_id
WHERE {{RUNS}} ORDER BY x.wasted_nano DESC, x.trace_id COLLATE "C", x.seq LIMIT $4`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (RepeatRow, error) {
		var x RepeatRow
		err := r.Scan(&x.TraceID, &x.Workflow, &x.StepName, &x.ToolName, &x.Model, &x.Occurrences, &x.SpendNano,
			&x.WastedNano, &x.FirstSeen)
		x.FirstSeen = x.FirstSeen.UTC()
		return x, err
	})
}

// OutcomeSums are one workflow's runs by declared outcome.
type OutcomeSums struct {
	Workflow                                   *string
	CostNano, Runs, Succeeded, Failed, Unknown int64
	SuccessCostNano, FailureCostNano           int64
}

// OutcomeRows reads the outcome rows, by the workflow's run cost.
func (db *DB) OutcomeRows(ctx context.Context, q RunQuery) ([]OutcomeSums, error) {
	sql, args := q.sql(`SELECT r.workflow, sum(r.cost_nano)::bigint, count(*), count(*) FILTER (WHERE o.success),
  count(*) FILTER (WHERE NOT o.success), count(*) FILTER (WHERE o.trace_id IS NULL),
  coalesce(sum(r.cost_nano) FILTER (WHERE o.success), 0)::bigint,
  coalesce(sum(r.cost_nano) FILTER (WHERE NOT o.success), 0)::bigint
FROM runs r LEFT JOIN outcomes o ON o.project_id = r.project_id AND o.trace_id = r.trace_id
WHERE {{RUNS}} GROUP BY r.workflow ORDER BY 2 DESC, coalesce(r.workflow, '') COLLATE "C", r.workflow NULLS FIRST
LIMIT $4`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (OutcomeSums, error) {
		var o OutcomeSums
		return o, r.Scan(&o.Workflow, &o.CostNano, &o.Runs, &o.Succeeded, &o.Failed, &o.Unknown,
			&o.SuccessCostNano, &o.FailureCostNano)
	})
}

// TopWorkflow is the window's highest-spend workflow (cost, then name);
// ok is false when no run in the window has a workflow.
func (db *DB) TopWorkflow(ctx context.Context, q RunQuery) (string, bool, error) {
	q.Limit = 1
	sql, args := q.sql(`SELECT r.workflow FROM runs r WHERE {{RUNS}} AND r.workflow IS NOT NULL
GROUP BY r.workflow ORDER BY sum(r.cost_nano) DESC, r.workflow COLLATE "C" LIMIT $4`)
	names, err := collect(ctx, db, sql, args, pgx.RowTo[string])
	if err != nil || len(names) == 0 {
		return "", false, err
	}
	return names[0], true, nil
}

// RunCosts reads the cost of the newest Limit runs of the window (Limit +
// 1 tells the caller there were more).
func (db *DB) RunCosts(ctx context.Context, q RunQuery) ([]int64, error) {
	sql, args := q.sql(`SELECT r.cost_nano FROM runs r WHERE {{RUNS}} ORDER BY r.first_ts DESC LIMIT $4`)
	return collect(ctx, db, sql, args, pgx.RowTo[int64])
}

// RunRow is one run's totals.
type RunRow struct {
	TraceID                                string
	Workflow                               *string
	Calls, CostNano, MaxDepth, FailedCalls int64
	FirstTS, LastEnd                       time.Time
}

// TraceRows reads the most expensive runs of the window.
func (db *DB) TraceRows(ctx context.Context, q RunQuery) ([]RunRow, error) {
	sql, args := q.sql(`SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls,
  r.first_ts, r.last_end
FROM runs r WHERE {{RUNS}} ORDER BY r.cost_nano DESC, r.trace_id COLLATE "C" LIMIT $4`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (RunRow, error) {
		var x RunRow
		err := r.Scan(&x.TraceID, &x.Workflow, &x.Calls, &x.CostNano, &x.MaxDepth, &x.FailedCalls, &x.FirstTS,
			&x.LastEnd)
		x.FirstTS, x.LastEnd = x.FirstTS.UTC(), x.LastEnd.UTC()
		return x, err
	})
}

func collect[T any](ctx context.Context, db *DB, sql string, args []any, scan pgx.RowToFunc[T]) ([]T, error) {
	rows, err := db.Pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err, "runs")
	}
	out, err := pgx.CollectRows(rows, scan)
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
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			built, err := readRuns(ctx, tx, []string{projectID}, []string{traceID})
			if err != nil {
				return err
			}
			if len(built) == 1 {
				tr.Run = &built[0].Run
			}
			var o Outcome
			err = tx.QueryRow(ctx, `SELECT success, label, recorded_at FROM outcomes
WHERE project_id = $1 AND trace_id = $2`, projectID, traceID).Scan(&o.Success, &o.Label, &o.RecordedAt)
			switch {
			case err == nil:
				o.RecordedAt = o.RecordedAt.UTC()
				tr.Outcome = &o
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
			return nil
		})
	if err != nil {
		return Trace{}, translate(err, "trace")
	}
	if tr.Run == nil && tr.Outcome == nil {
		return Trace{}, apierr.Newf(apierr.NotFound, "trace %q not found in this project", traceID)
	}
	return tr, nil
}
