package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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
	err := db.onReader(ctx, func(pool *pgxpool.Pool) error {
		return pool.QueryRow(ctx, agentLatenciesSQL, project, agent, from, to).Scan(&out)
	})
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
// first_ts) (migration 0021), which carries every column it reads. The
// models come as the step's distinct model lists (few), merged by the
// caller: unnesting every row's list took longer than the rest together.
const agentStepsSQL = `SELECT step_name COLLATE "C", count(*), sum(calls)::bigint, sum(cost_nano)::bigint,
  sum(success_calls)::bigint, max(calls), array_agg(cost_nano ORDER BY cost_nano), sum(tool_calls) = sum(calls),
  jsonb_agg(DISTINCT to_jsonb(models))
FROM run_steps
WHERE project_id = $1 AND agent_name = $2 AND first_ts >= $3 AND first_ts < $4
GROUP BY 1 ORDER BY 4 DESC, 1`

// AgentSteps reads the step rows of q.AgentName's runs in the window (the
// per-run step rows the step report's rollups are summed from).
func (db *DB) AgentSteps(ctx context.Context, q RunQuery) ([]AgentStep, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	return collect(ctx, db, agentStepsSQL,
		func(r pgx.CollectableRow) (AgentStep, error) {
			var s AgentStep
			var lists [][]string
			err := r.Scan(&s.StepName, &s.Runs, &s.Calls, &s.CostNano, &s.SuccessCalls, &s.MaxCallsPerRun,
				&s.RunCosts, &s.Tool, &lists)
			s.Models = slices.Compact(slices.Sorted(slices.Values(slices.Concat(lists...))))
			return s, err
		}, q.ProjectID, q.AgentName, q.Start, q.End)
}
