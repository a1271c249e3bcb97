package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// AgentCalls are the facts of one agent's detail read from its calls of
// the window: the latencies (for exact percentiles) and, per step name of
// its traced calls, the models used and whether every call is a tool call.
type AgentCalls struct {
	Latencies []int64
	Steps     map[string]StepCalls
}

// StepCalls are one step's models (sorted) and tool flag.
type StepCalls struct {
	Models []string
	Tool   bool
}

// agentCallsSQL reads one agent's calls of the window once, through events
// (project_id, agent_name, ts), for both the latencies and the step facts.
const agentCallsSQL = `WITH ev AS MATERIALIZED (
  SELECT step_name, model, tool_name, trace_id, latency_ms FROM events
  WHERE project_id = $1 AND agent_name = $2 AND ts >= $3 AND ts < $4
), lat AS (
  SELECT coalesce(array_agg(latency_ms) FILTER (WHERE latency_ms IS NOT NULL), '{}') AS ms FROM ev
), st AS (
  SELECT step_name, array_agg(DISTINCT model ORDER BY model) AS models, bool_and(tool_name IS NOT NULL) AS tool
  FROM ev WHERE step_name IS NOT NULL AND trace_id IS NOT NULL GROUP BY step_name
)
SELECT lat.ms, st.step_name, st.models, st.tool FROM lat LEFT JOIN st ON true`

// ReadAgentCalls reads an agent's latencies and step facts over [from, to).
func (db *DB) ReadAgentCalls(ctx context.Context, project, agent string, from, to time.Time) (AgentCalls, error) {
	out := AgentCalls{Steps: map[string]StepCalls{}}
	rows, err := db.Pool.Query(ctx, agentCallsSQL, project, agent, from, to)
	if err != nil {
		return out, translate(err, "analytics")
	}
	var step *string
	var models []string
	var tool *bool
	_, err = pgx.ForEachRow(rows, []any{&out.Latencies, &step, &models, &tool}, func() error {
		if step != nil {
			out.Steps[*step] = StepCalls{Models: models, Tool: tool != nil && *tool}
		}
		return nil
	})
	return out, translate(err, "analytics")
}

// AgentStep is one step name's figures over an agent's runs of a window,
// with the per-run calls and cost that give its maximum and percentiles.
type AgentStep struct {
	StepName                            string
	Runs, Calls, CostNano, SuccessCalls int64
	MaxCallsPerRun                      int64
	RunCosts                            []int64 // sorted ascending
}

// AgentSteps reads the step rows of q.AgentName's runs in the window from
// the per-run step rows (the ones the step report's rollups are summed
// from), by step name across workflows, most expensive first.
func (db *DB) AgentSteps(ctx context.Context, q RunQuery) ([]AgentStep, error) {
	if err := db.FreshRuns(ctx, q.ProjectID); err != nil {
		return nil, err
	}
	q.Limit = 0
	sql, args := q.sql(`SELECT s.step_name, count(*), sum(s.calls)::bigint, sum(s.cost_nano)::bigint,
  sum(s.success_calls)::bigint, max(s.calls), array_agg(s.cost_nano ORDER BY s.cost_nano)
FROM runs r JOIN run_steps s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
WHERE {{RUNS}} AND $4::bigint IS NULL
GROUP BY s.step_name ORDER BY 4 DESC, s.step_name COLLATE "C"`)
	return collect(ctx, db, sql, args, func(r pgx.CollectableRow) (AgentStep, error) {
		var s AgentStep
		return s, r.Scan(&s.StepName, &s.Runs, &s.Calls, &s.CostNano, &s.SuccessCalls, &s.MaxCallsPerRun, &s.RunCosts)
	})
}
