package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"

	"github.com/llmcost/llmcost/internal/guardrail"
)

// DayUsage is one agent's use of one tool or model on one UTC day of the
// window, from its per-agent rollups and calls.
type DayUsage struct {
	Agent, Dim, Key string
	Day             time.Time
	Calls, CostNano int64
}

// AgentRun is one run's stored totals, with its agent.
type AgentRun struct {
	Agent string
	guardrail.Run
}

// ComplianceData is what compliance reads for the guarded agents over a
// window [from, to): its whole UTC days from the daily rollups, the whole
// hours at its edges from the hourly ones, its partial first and last
// hours and the rollups' tail from the events (analytics.Decompose).
type ComplianceData struct {
	Usage []DayUsage
	// Totals are calls and cost per agent; ProjectCalls and ToolCalls are
	// the project's, every agent included.
	Totals                  map[string][2]int64
	ProjectCalls, ToolCalls int64
	LastSeen                map[[3]string]time.Time // agent, dim, key
	Runs                    []AgentRun
}

// The compliance reads add the tail (events not yet merged into the
// rollups, tx at or above the watermark) to the rollups, so a batch is
// judged the moment it is stored, as every report sees it (merge.go).
// They share one snapshot and take the watermark as a parameter, with
// custom plans: against a sub-select the planner guessed a
// third of the events as the tail and read a month of them instead of the
// BRIN index on tx. The usage of one agent is its per-agent rows, hourly
// and daily, of tool and model.
const complianceUsageSQL = `SELECT agent_name, dim, key, date_trunc('day', bucket, 'UTC'), sum(calls)::bigint, sum(cost_nano)::bigint FROM (
  SELECT agent_name, dim, key, bucket, calls, cost_nano FROM rollup_hour
  WHERE project_id = @project_id AND dim IN ('tool', 'model') AND agent_name = ANY(@agents) AND ` + complianceHours + `
  UNION ALL
  SELECT agent_name, dim, key, bucket, calls, cost_nano FROM rollup_day
  WHERE project_id = @project_id AND dim IN ('tool', 'model') AND agent_name = ANY(@agents)
    AND bucket >= @days_start AND bucket < @days_end
  UNION ALL
  SELECT e.agent_name, v.dim, v.key, e.ts, 1, e.cost_nano
  FROM events e CROSS JOIN LATERAL (VALUES ('tool', e.tool_name), ('model', e.model)) AS v(dim, key)
  WHERE e.project_id = @project_id AND e.agent_name = ANY(@agents) AND v.key IS NOT NULL AND ` + complianceRaw + `
) u GROUP BY 1, 2, 3, 4`

// complianceHours selects the hourly rows (bucket) of the window's whole
// hours before its first and after its last whole day.
const complianceHours = `((bucket >= @hour_head_start AND bucket < @hour_head_end)
    OR (bucket >= @hour_tail_start AND bucket < @hour_tail_end))`

// complianceRaw selects the events (alias e) read raw: the window's
// partial first and last hours, which no rollup cuts, and the tail within
// the span the rollups cover.
const complianceRaw = `((e.tx >= @watermark AND e.ts >= @rolled_start AND e.ts < @rolled_end)
    OR (e.ts >= @raw_head_start AND e.ts < @raw_head_end) OR (e.ts >= @raw_tail_start AND e.ts < @raw_tail_end))`

const complianceTotalsSQL = `SELECT key, sum(calls)::bigint, sum(cost_nano)::bigint FROM (
  SELECT key, calls, cost_nano FROM rollup_hour
  WHERE project_id = @project_id AND dim = 'agent' AND agent_name = '' AND ` + complianceHours + `
  UNION ALL
  SELECT key, calls, cost_nano FROM rollup_day
  WHERE project_id = @project_id AND dim = 'agent' AND agent_name = '' AND bucket >= @days_start AND bucket < @days_end
  UNION ALL
  SELECT e.agent_name, 1, e.cost_nano FROM events e
  WHERE e.project_id = @project_id AND ` + complianceRaw + `
) u GROUP BY key`

const complianceToolCallsSQL = `SELECT coalesce(sum(calls), 0)::bigint FROM (
  SELECT calls FROM rollup_hour
  WHERE project_id = @project_id AND dim = 'tool' AND agent_name = '' AND ` + complianceHours + `
  UNION ALL
  SELECT calls FROM rollup_day
  WHERE project_id = @project_id AND dim = 'tool' AND agent_name = '' AND bucket >= @days_start AND bucket < @days_end
  UNION ALL
  SELECT 1 FROM events e
  WHERE e.project_id = @project_id AND e.tool_name IS NOT NULL AND ` + complianceRaw + `
) u`

// complianceLastSeenSQL is when each agent last used each tool and model:
// agent_last_seen (kept by the merger) or a later call of the tail.
const complianceLastSeenSQL = `SELECT agent_name, dim, key, max(last_seen) FROM (
  SELECT agent_name, dim, key, last_seen FROM agent_last_seen WHERE project_id = $1 AND agent_name = ANY($2)
  UNION ALL
  SELECT e.agent_name, v.dim, v.key, e.ts
  FROM events e CROSS JOIN LATERAL (VALUES ('tool', e.tool_name), ('model', e.model)) AS v(dim, key)
  WHERE e.project_id = $1 AND e.tx >= $3 AND e.ts >= $4 AND e.ts < $5 AND e.agent_name = ANY($2)
    AND v.key IS NOT NULL AND v.key <> ''
) u GROUP BY 1, 2, 3`

// complianceRunsSQL reads the stored totals of the guarded agents' runs
// that carry a workflow and started in the window: one runs row each.
const complianceRunsSQL = `SELECT agent_name, trace_id, tool_calls, cost_nano, last_end
FROM runs WHERE project_id = $1 AND agent_name = ANY($2) AND first_ts >= $3 AND first_ts < $4
  AND workflow IS NOT NULL`

// ReadCompliance reads the usage of agents in one snapshot.
func (db *DB) ReadCompliance(ctx context.Context, project string, agents []string, from, to time.Time) (ComplianceData, error) {
	d := ComplianceData{Totals: map[string][2]int64{}, LastSeen: map[[3]string]time.Time{}}
	if err := db.FreshRunsIn(ctx, project, from, to); err != nil {
		return d, err
	}
	err := db.readSnapshot(ctx, project, func(tx pgx.Tx, t tail) error {
		return readCompliance(ctx, tx, t, project, agents, from, to, &d)
	})
	return d, err // readSnapshot translated it
}

func readCompliance(ctx context.Context, tx pgx.Tx, t tail, project string, agents []string, from, to time.Time, d *ComplianceData) error {
	// One set of arguments for the three reads of the window, window.sql's
	// (the parts this read does not take stay empty: no weeks, nothing
	// complemented); pgx sends each statement the names it has.
	s := analytics.Decompose(analytics.Span{Start: from, End: to}, analytics.Day)
	args := pgx.NamedArgs(windowArgs(project, "", s, t))
	args["agents"] = agents
	rows, err := tx.Query(ctx, complianceUsageSQL, args)
	if err != nil {
		return err
	}
	var u DayUsage
	if _, err := pgx.ForEachRow(rows, []any{&u.Agent, &u.Dim, &u.Key, &u.Day, &u.Calls, &u.CostNano}, func() error {
		u.Day = u.Day.UTC()
		d.Usage = append(d.Usage, u)
		return nil
	}); err != nil {
		return err
	}
	rows, err = tx.Query(ctx, complianceTotalsSQL, args)
	if err != nil {
		return err
	}
	var key string
	var calls, cost int64
	if _, err := pgx.ForEachRow(rows, []any{&key, &calls, &cost}, func() error {
		d.Totals[key] = [2]int64{calls, cost}
		d.ProjectCalls += calls
		return nil
	}); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, complianceToolCallsSQL, args).Scan(&d.ToolCalls); err != nil {
		return err
	}
	rows, err = tx.Query(ctx, complianceLastSeenSQL, project, agents, t.watermark, t.span.Start, t.span.End)
	if err != nil {
		return err
	}
	var agent, dim string
	var seen time.Time
	if _, err := pgx.ForEachRow(rows, []any{&agent, &dim, &key, &seen}, func() error {
		d.LastSeen[[3]string{agent, dim, key}] = seen.UTC()
		return nil
	}); err != nil {
		return err
	}
	rows, err = tx.Query(ctx, complianceRunsSQL, project, agents, from, to)
	if err != nil {
		return err
	}
	var r AgentRun
	_, err = pgx.ForEachRow(rows, []any{&r.Agent, &r.TraceID, &r.ToolCalls, &r.CostNano, &r.LastSeen}, func() error {
		r.LastSeen = r.LastSeen.UTC()
		d.Runs = append(d.Runs, r)
		return nil
	})
	return err
}
