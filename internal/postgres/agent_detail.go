package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// agentLatenciesSQL reads one agent's latencies of the window by an
// index-only scan of events (project_id, agent_name, ts) INCLUDE
// (latency_ms) (migration 0021).
const agentLatenciesSQL = `SELECT coalesce(array_agg(latency_ms) FILTER (WHERE latency_ms IS NOT NULL), '{}')
FROM events WHERE project_id = $1 AND agent_name = $2 AND ts >= $3 AND ts < $4`

// ReadAgentLatencies reads an agent's latencies over [from, to), for exact
// percentiles.
func (db *DB) ReadAgentLatencies(ctx context.Context, project, agent string, from, to time.Time) ([]int64, error) {
	var out []int64
	err := db.Pool.QueryRow(ctx, agentLatenciesSQL, project, agent, from, to).Scan(&out)
	return out, translate(err, "analytics")
}

// AgentStep is one step name's figures over an agent's runs of a window,
// with the per-run calls and cost that give its maximum and percentiles,
// and the step's facts: the models its calls used and whether every one
// was a tool call.
type AgentStep struct {
	StepName                            string
	Runs, Calls, CostNano, SuccessCalls int64
	MaxCallsPerRun                      int64
	RunCosts                            []int64 // sorted ascending
	Models                              []string
	Tool                                bool
}

// agentStepsSQL sums the step rows of an agent's runs whose first call lies
// in the window by step name across workflows, most expensive first, from
// one index-only range scan of run_steps (project_id, agent_name,
// first_ts) (migration 0021), which carries every column it reads.
const agentStepsSQL = `WITH s AS MATERIALIZED (
  SELECT step_name, calls, cost_nano, success_calls, tool_calls, models FROM run_steps
  WHERE project_id = $1 AND agent_name = $2 AND first_ts >= $3 AND first_ts < $4
)
SELECT s.step_name, count(*), sum(s.calls)::bigint, sum(s.cost_nano)::bigint, sum(s.success_calls)::bigint,
  max(s.calls), array_agg(s.cost_nano ORDER BY s.cost_nano), sum(s.tool_calls) = sum(s.calls),
  (SELECT array_agg(DISTINCT m COLLATE "C" ORDER BY m COLLATE "C") FROM s s2, unnest(s2.models) m
   WHERE s2.step_name = s.step_name)
FROM s GROUP BY s.step_name ORDER BY 4 DESC, s.step_name COLLATE "C"`

// AgentSteps reads the step rows of q.AgentName's runs in the window (the
// per-run step rows the step report's rollups are summed from).
func (db *DB) AgentSteps(ctx context.Context, q RunQuery) ([]AgentStep, error) {
	return collect(ctx, db, agentStepsSQL, []any{q.ProjectID, q.AgentName, q.Start, q.End},
		func(r pgx.CollectableRow) (AgentStep, error) {
			var s AgentStep
			return s, r.Scan(&s.StepName, &s.Runs, &s.Calls, &s.CostNano, &s.SuccessCalls, &s.MaxCallsPerRun,
				&s.RunCosts, &s.Tool, &s.Models)
		})
}
