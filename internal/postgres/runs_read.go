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

// daySplit returns the whole UTC days [d1, d2) of the window, read from the
// daily rollups; the runs of [Start, d1) and [d2, End) are read from the
// runs table. A window inside one day reads only runs.
func (q RunQuery) daySplit() (d1, d2 time.Time) {
	d1, d2 = dayOf(q.Start), dayOf(q.End)
	if d1.Before(q.Start) {
		d1 = d1.Add(24 * time.Hour)
	}
	if d1.After(d2) {
		return q.End, q.End
	}
	return d1, d2
}

// rollupSQL puts into body the WHERE of the rollup rows (alias x, at
// {{DAYS}}) and of the edge runs (alias r, at {{EDGES}}): $1 project, $2
// start, $3 end, $4 limit, $5 and $6 the whole days, $7 the agent (”
// reads the all-agents rows), $8 the workflow (” for none).
func (q RunQuery) rollupSQL(body string) (string, []any) {
	var limit any
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	d1, d2 := q.daySplit()
	args := []any{q.ProjectID, q.Start, q.End, limit, d1, d2, q.AgentName, q.Workflow}
	days := "x.project_id = $1 AND x.agent_name = $7 AND x.bucket >= $5 AND x.bucket < $6"
	edges := "r.project_id = $1 AND ((r.first_ts >= $2 AND r.first_ts < $5) OR (r.first_ts >= $6 AND r.first_ts < $3))"
	if q.AgentName != "" {
		edges += " AND r.agent_name = $7"
	}
	if q.HasWorkflow {
		days += " AND x.workflow = $8"
		edges += " AND coalesce(r.workflow, '') = $8"
	} else {
		args = args[:7] // an unreferenced parameter has no type
	}
	return strings.NewReplacer("{{DAYS}}", days, "{{EDGES}}", edges).Replace(body), args
}

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
	sql, args := q.rollupSQL(`WITH src AS (
  SELECT x.workflow, x.runs, x.cost_nano, x.max_cost_nano, x.calls, x.steps, x.max_depth, x.success_calls,
    x.succeeded, x.failed, x.success_cost, x.failure_cost
  FROM run_day x WHERE {{DAYS}}
  UNION ALL
  SELECT coalesce(r.workflow, ''), 1, r.cost_nano, r.cost_nano, r.calls, r.steps, r.max_depth, r.success_calls,
    (o.success IS TRUE)::int, (o.success IS FALSE)::int, CASE WHEN o.success THEN r.cost_nano ELSE 0 END,
    CASE WHEN NOT o.success THEN r.cost_nano ELSE 0 END
  FROM runs r LEFT JOIN LATERAL (SELECT o.success FROM outcomes o
    WHERE o.project_id = r.project_id AND o.trace_id = r.trace_id OFFSET 0) o ON true
  WHERE {{EDGES}}
)
SELECT NULLIF(workflow, ''), sum(runs)::bigint, sum(cost_nano)::bigint, max(max_cost_nano), sum(calls)::bigint,
  sum(steps)::bigint, max(max_depth), sum(success_calls)::bigint, sum(succeeded)::bigint, sum(failed)::bigint,
  sum(success_cost)::bigint, sum(failure_cost)::bigint
FROM src GROUP BY workflow ORDER BY 3 DESC, workflow COLLATE "C" LIMIT $4`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (WorkflowSums, error) {
		var w WorkflowSums
		return w, r.Scan(&w.Workflow, &w.Runs, &w.CostNano, &w.MaxCostNano, &w.Calls, &w.Steps, &w.MaxDepth,
			&w.SuccessCalls, &w.Succeeded, &w.Failed, &w.SuccessCostNano, &w.FailureCostNano)
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

// The edge joins are LATERAL … OFFSET 0: a few thousand runs of the
// partial days look up their rows by key, where the planner would
// otherwise hash the project's whole run_steps or run_tools table. One set
// read instead (the edge runs in a CTE, their rows by trace_id = ANY(the
// ids), hash-joined back for the workflow) was measured slower warm, and
// it reads the same index leaf and heap pages cold (docs/performance.md).

// groupRows reads step or tool sums: whole days from rollup, the edges from
// the runs' per-run rows (table, column name); by workflow too when byWorkflow.
func (db *DB) groupRows(ctx context.Context, q RunQuery, rollup, table, name string, byWorkflow bool) ([]GroupSums, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	wf, group, order := "NULL::text", "name", `name COLLATE "C"`
	if byWorkflow {
		wf, group, order = "NULLIF(workflow, '')", "workflow, name", `workflow COLLATE "C", name COLLATE "C"`
	}
	rollupWF := "x.workflow"
	if rollup == "run_tool_all_day" {
		rollupWF = "''::text" // rows over every workflow
	}
	sql, args := q.rollupSQL(`WITH src AS (
  SELECT ` + rollupWF + `, x.name, x.calls, x.runs, x.cost_nano, x.tokens, x.latency_sum, x.latency_count, x.success_calls
  FROM ` + rollup + ` x WHERE {{DAYS}}
  UNION ALL
  SELECT coalesce(r.workflow, ''), s.` + name + `, s.calls, 1, s.cost_nano, s.tokens, s.latency_sum, s.latency_count,
    s.success_calls
  FROM runs r CROSS JOIN LATERAL (SELECT * FROM ` + table + ` s
    WHERE s.project_id = r.project_id AND s.trace_id = r.trace_id OFFSET 0) s
  WHERE {{EDGES}}
)
SELECT ` + wf + `, name, sum(cost_nano)::bigint, sum(calls)::bigint, sum(runs)::bigint, sum(tokens)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint
FROM src GROUP BY ` + group + ` ORDER BY 3 DESC, ` + order + ` LIMIT $4`)
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

// RepeatRows reads the repeated-work rows, most wasted first: the groups
// carry their run's first call time, agent and workflow, so the read walks
// run_repeats_wasted_idx and stops at the limit.
func (db *DB) RepeatRows(ctx context.Context, q RunQuery) ([]RepeatRow, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	sql, args := q.sql(`SELECT x.trace_id, x.workflow, x.step_name, x.tool_name, x.model, x.occurrences,
  x.spend_nano, x.wasted_nano, x.first_seen
FROM run_repeats x WHERE {{RUNS}} ORDER BY x.wasted_nano DESC, x.trace_id, x.seq LIMIT $4`)
	sql = strings.NewReplacer("r.project_id", "x.project_id", "r.first_ts", "x.run_first_ts",
		"r.agent_name", "x.run_agent", "r.workflow", "x.run_workflow").Replace(sql)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (RepeatRow, error) {
		var x RepeatRow
		err := r.Scan(&x.TraceID, &x.Workflow, &x.StepName, &x.ToolName, &x.Model, &x.Occurrences, &x.SpendNano,
			&x.WastedNano, &x.FirstSeen)
		x.FirstSeen = x.FirstSeen.UTC()
		return x, err
	})
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

// traceWindowCap is how many of a window's runs TraceRows sorts itself
// before it walks the cost index instead.
const traceWindowCap = 2000

// traceRowsSQL answers the most expensive runs of the window by one of two
// plans, chosen on the window's size rather than by the planner's
// estimate. Walking the cost index and skipping the runs outside the
// window reads about limit ÷ (the window's share of the project's runs)
// entries: a handful for a busy window, every run of the project for an
// empty one (a window being back-filled, or a quiet agent's week), which
// took seconds at a million runs. Reading the window by its first calls
// reads the window's runs: few for a sparse window, all of them for a
// busy one. So the window is read first, up to traceWindowCap + 1 runs;
// a window that holds at most traceWindowCap is sorted whole, and only a
// larger one, where the cost index finds the limit within a few thousand
// entries, walks it. The walk's branch runs only when its one-time
// filter holds.
var traceRowsSQL = `WITH w AS MATERIALIZED (
  SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls, r.first_ts, r.last_end
  FROM runs r WHERE {{RUNS}} ORDER BY r.first_ts LIMIT ` + strconv.Itoa(traceWindowCap+1) + `
), n AS MATERIALIZED (SELECT count(*) AS runs FROM w)
SELECT * FROM (
  SELECT w.* FROM w WHERE (SELECT runs FROM n) <= ` + strconv.Itoa(traceWindowCap) + `
  UNION ALL
  (SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls, r.first_ts, r.last_end
  FROM runs r WHERE {{RUNS}} AND (SELECT runs FROM n) > ` + strconv.Itoa(traceWindowCap) + `
  ORDER BY r.cost_nano DESC, r.trace_id COLLATE "C" LIMIT $4)
) t ORDER BY t.cost_nano DESC, t.trace_id COLLATE "C" LIMIT $4`

// TraceRows reads the most expensive runs of the window.
func (db *DB) TraceRows(ctx context.Context, q RunQuery) ([]RunRow, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	sql, args := q.sql(traceRowsSQL)
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
