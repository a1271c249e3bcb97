package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/runs"
)

// runRowSQL is one run's row of runs.
const runRowSQL = `SELECT agent_name, coalesce(workflow, ''), first_ts, first_event_id, last_end, calls, cost_nano,
  tool_calls, failed_calls, success_calls, tokens, max_depth, steps
FROM runs WHERE project_id = $1 AND trace_id = $2`

// runGroupsSQL is one run's step (or tool) rows, by name.
const runGroupsSQL = `SELECT %[1]s, calls, cost_nano, tokens, latency_sum, latency_count, success_calls
FROM %[2]s WHERE project_id = $1 AND trace_id = $2 ORDER BY %[1]s COLLATE "C"`

// ReadRunTotals reads one run as the run tables keep it once its calls
// have expired: its totals and its step and tool sums (no spans, no
// repeats), with its outcome, in one snapshot. A trace without a run row
// is 404.
func (db *DB) ReadRunTotals(ctx context.Context, projectID, traceID string) (Trace, error) {
	var tr Trace
	err := db.snapshotOnReader(ctx, func(tx pgx.Tx) error {
		tr = Trace{}
		var s runs.Summary
		err := tx.QueryRow(ctx, runRowSQL, projectID, traceID).Scan(&s.AgentName, &s.Workflow, &s.FirstTS,
			&s.FirstEventID, &s.LastEnd, &s.Calls, &s.CostNano, &s.ToolCalls, &s.FailedCalls, &s.SuccessCalls, &s.Tokens,
			&s.MaxDepth, &s.Steps)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		s.FirstTS, s.LastEnd = s.FirstTS.UTC(), s.LastEnd.UTC()
		run := runs.Run{Summary: s}
		for _, g := range []struct {
			name, table string
			into        *[]runs.Group
		}{{"step_name", "run_steps", &run.Steps}, {"tool_name", "run_tools", &run.Tools}} {
			rows, err := tx.Query(ctx, fmt.Sprintf(runGroupsSQL, g.name, g.table), projectID, traceID)
			if err != nil {
				return err
			}
			*g.into, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (runs.Group, error) {
				var x runs.Group
				return x, r.Scan(&x.Name, &x.Calls, &x.CostNano, &x.Tokens, &x.LatencySum, &x.LatencyCount, &x.SuccessCalls)
			})
			if err != nil {
				return err
			}
		}
		tr.Run = &run
		tr.Outcome, err = readOutcome(ctx, tx, projectID, traceID)
		return err
	})
	if err != nil {
		return Trace{}, translate(err, "trace")
	}
	if tr.Run == nil {
		return Trace{}, apierr.Newf(apierr.NotFound, "trace %q not found in this project", traceID)
	}
	return tr, nil
}
