package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// ToolModelKey is the key of a tool call's rollup rows by tool and model
// together (dimension tool_model, per agent only): the tool's length in
// bytes, a colon, the tool and the model. The length keeps the key
// unambiguous whatever the names hold.
func ToolModelKey(tool, model string) string {
	return fmt.Sprintf("%d:%s%s", len(tool), tool, model)
}

// breachRolledSQL is the cost of the agent's calls that used one of
// @tools or one of @models, each call once: the tool rows plus the model
// rows less the rows of the pairs of both (@pairs), from the rollups over
// the window's whole days and hours (compliance's segments, so the
// amount is of the calls compliance counted), and the rest raw.
const breachRolledSQL = `SELECT coalesce(sum(cost_nano) FILTER (WHERE dim <> 'tool_model'), 0)::bigint
  - coalesce(sum(cost_nano) FILTER (WHERE dim = 'tool_model'), 0)::bigint FROM (
  SELECT dim, cost_nano FROM rollup_hour
  WHERE project_id = @project_id AND dim IN ('tool', 'model', 'tool_model') AND agent_name = @agent
    AND ` + complianceHours + ` AND ` + breachKeys + `
  UNION ALL
  SELECT dim, cost_nano FROM rollup_day
  WHERE project_id = @project_id AND dim IN ('tool', 'model', 'tool_model') AND agent_name = @agent
    AND bucket >= @days_start AND bucket < @days_end AND ` + breachKeys + `
  UNION ALL
  SELECT 'raw', e.cost_nano FROM events e
  WHERE e.project_id = @project_id AND e.agent_name = @agent AND ` + complianceRaw + `
    AND (e.tool_name = ANY(@tools) OR e.model = ANY(@models))
) u`

// breachKeys keeps the rollup rows of the breaching tools, models and
// pairs of both.
const breachKeys = `((dim = 'tool' AND key = ANY(@tools)) OR (dim = 'model' AND key = ANY(@models))
    OR (dim = 'tool_model' AND key = ANY(@pairs)))`

// breachRunsSQL is the cost of the calls of the runs over a limit
// (@traces) that breach no tool or model rule, the agent's in [from, to),
// read by trace.
const breachRunsSQL = `SELECT coalesce(sum(e.cost_nano), 0)::bigint
FROM unnest(@traces::text[]) AS r(trace_id) CROSS JOIN LATERAL (
  SELECT cost_nano, tool_name, model FROM events
  WHERE project_id = @project_id AND trace_id = r.trace_id AND agent_name = @agent AND ts >= @from AND ts < @to
) e
WHERE (e.tool_name = ANY(@tools)) IS NOT TRUE AND (e.model = ANY(@models)) IS NOT TRUE`

// BreachCost is the cost of an agent's distinct calls in [from, to) that
// used one of tools or models, or belong to one of the runs traces: each
// call counts once, whatever number of breaches it is part of. The calls
// of tools and models come from the rollups (a call of both is in the
// tool_model rows, taken off once) with the window's partial edges and
// the unmerged tail raw; the runs' calls are read by trace, less those
// already counted. Both reads share one snapshot.
func (db *DB) BreachCost(ctx context.Context, project, agent string, from, to time.Time, tools, models, traces []string) (int64, error) {
	if tools == nil {
		tools = []string{}
	}
	if models == nil {
		models = []string{}
	}
	pairs := make([]string, 0, len(tools)*len(models))
	for _, t := range tools {
		for _, m := range models {
			pairs = append(pairs, ToolModelKey(t, m))
		}
	}
	var cost int64
	err := db.readSnapshot(ctx, project, func(tx pgx.Tx, t tail) error {
		s := analytics.Decompose(analytics.Span{Start: from, End: to}, analytics.Day)
		args := pgx.NamedArgs(windowArgs(project, agent, s, t))
		args["tools"], args["models"], args["pairs"], args["traces"] = tools, models, pairs, traces
		args["from"], args["to"] = from, to
		if len(tools)+len(models) > 0 {
			if err := tx.QueryRow(ctx, breachRolledSQL, args).Scan(&cost); err != nil {
				return err
			}
		}
		if len(traces) == 0 {
			return nil
		}
		var runs int64
		err := tx.QueryRow(ctx, breachRunsSQL, args).Scan(&runs)
		cost += runs
		return err
	})
	return cost, err // readSnapshot translated it
}
