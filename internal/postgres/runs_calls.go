package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/runs"
)

// runCallsSQL reads the stored calls of runs, each with its run's
// position (from 1) in the arrays. Unordered: readRuns groups them by
// position itself, where ORDER BY project_id::text, trace_id sorted a
// chunk's calls on disk (past work_mem), a third of the statement.
const runCallsSQL = `SELECT u.i, e.event_id, e.agent_name, e.model, e.ts,
  coalesce(e.span_id, ''), coalesce(e.parent_span_id, ''), coalesce(e.workflow, ''), coalesce(e.step_name, ''),
  coalesce(e.tool_name, ''), coalesce(e.request_hash, ''), e.input_tokens, e.total_tokens, e.cost_nano,
  e.latency_ms, e.success
FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS u(p, t, i)
JOIN events e ON e.project_id = u.p AND e.trace_id = u.t`

// runCallsBoundedSQL is runCallsSQL for runs whose marks the caller has
// locked: it reads each run's calls only between the earliest first call
// and the latest end of its stored row and its mark (a run with neither
// reads them all). Every stored call of the run is in the row (refreshed)
// or the mark (since), so none lies outside. The bound prunes the events'
// partitions per run as the statement runs (a LATERAL subquery, kept from
// being flattened into a join by OFFSET 0): without it each run probed the
// trace index of every month retained.
const runCallsBoundedSQL = `SELECT u.i, e.event_id, e.agent_name, e.model, e.ts,
  e.span_id, e.parent_span_id, e.workflow, e.step_name, e.tool_name, e.request_hash, e.input_tokens, e.total_tokens,
  e.cost_nano, e.latency_ms, e.success
FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS u(p, t, i)
LEFT JOIN runs r ON r.project_id = u.p AND r.trace_id = u.t
LEFT JOIN runs_pending m ON m.project_id = u.p AND m.trace_id = u.t
CROSS JOIN LATERAL (
  SELECT e.event_id, e.agent_name, e.model, e.ts, coalesce(e.span_id, '') AS span_id,
    coalesce(e.parent_span_id, '') AS parent_span_id, coalesce(e.workflow, '') AS workflow,
    coalesce(e.step_name, '') AS step_name, coalesce(e.tool_name, '') AS tool_name,
    coalesce(e.request_hash, '') AS request_hash, e.input_tokens, e.total_tokens, e.cost_nano, e.latency_ms, e.success
  FROM events e
  WHERE e.project_id = u.p AND e.trace_id = u.t
    AND e.ts >= coalesce(least(r.first_ts, m.first_ts), '-infinity')
    AND e.ts <= coalesce(greatest(r.last_end, m.last_end), 'infinity')
  OFFSET 0) e`

// readRuns reads the calls of the runs (p, t) with callsSQL (runCallsSQL
// or runCallsBoundedSQL) and builds each run, in the order of (p, t).
func readRuns(ctx context.Context, tx pgx.Tx, callsSQL string, p, t []string) ([]builtRun, error) {
	rows, err := tx.Query(ctx, callsSQL, p, t)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	calls := make([][]runs.Call, len(p))
	for rows.Next() {
		var i int64
		var c runs.Call
		if err := rows.Scan(&i, &c.EventID, &c.AgentName, &c.Model, &c.Timestamp,
			&c.SpanID, &c.ParentSpanID, &c.Workflow, &c.StepName, &c.ToolName, &c.RequestHash,
			&c.InputTokens, &c.TotalTokens, &c.CostNano, &c.LatencyMS, &c.Success); err != nil {
			return nil, err
		}
		if i < 1 || i > int64(len(p)) {
			return nil, fmt.Errorf("run calls: position %d of %d runs", i, len(p))
		}
		calls[i-1] = append(calls[i-1], c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []builtRun
	for i, cs := range calls {
		if len(cs) > 0 {
			out = append(out, builtRun{RunKey: RunKey{ProjectID: p[i], TraceID: t[i]}, Run: runs.Build(cs)})
		}
	}
	return out, nil
}
