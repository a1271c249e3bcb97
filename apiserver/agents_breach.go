package apiserver

import (
	"context"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
)

// breachFacts are an agent's guardrail breaches over the window: how many
// (breaching calls plus runs over a limit, the compliance record's counts)
// and the cost at stake.
type breachFacts struct {
	count, costNano int64
}

// readBreaches judges the guardrails (of the agents in only, when not nil)
// over rng, as GET /v1/guardrails/compliance does ([now − range, now)), returns
// each guarded agent's compliance record, and prices the breaches: the cost of the
// distinct calls that used an undeclared or write tool in a read-only
// agent, or an undeclared model, plus the calls of runs over a per-run
// limit not already counted (docs/agent-view.md).
func (s *Server) readBreaches(ctx context.Context, project string, rng analytics.Range,
	only map[string]bool) (map[string]breachFacts, map[string]*wire.AgentCompliance, error) {
	cr, err := s.readCompliance(ctx, project, rng, only)
	if err != nil {
		return nil, nil, err
	}
	out, records := map[string]breachFacts{}, map[string]*wire.AgentCompliance{}
	for _, row := range cr.rows {
		rec := agentCompliance(row, cr.pol, cr.data, cr.from, cr.to)
		records[row.AgentName] = &rec
		g := row.Guardrail
		if !g.Enabled || len(rec.Breaches) == 0 {
			continue
		}
		var n int64
		for _, b := range rec.Breaches {
			n += b.Count
		}
		var tools, models, traces []string
		for _, u := range rec.ToolUsage {
			if u.BreachKind != nil {
				tools = append(tools, u.ToolName)
			}
		}
		for _, m := range rec.ModelUsage {
			if !m.Permitted {
				models = append(models, m.Model)
			}
		}
		for _, r := range splitAgent(g.AgentName, cr.data).runs {
			over := (g.MaxToolCallsPerRun != nil && r.ToolCalls > *g.MaxToolCallsPerRun) ||
				(g.MaxCostPerRunNano != nil && r.CostNano > *g.MaxCostPerRunNano)
			if over {
				traces = append(traces, r.TraceID)
			}
		}
		cost, err := s.DB.BreachCost(ctx, project, g.AgentName, cr.from, cr.to, tools, models, traces)
		if err != nil {
			return nil, nil, err
		}
		out[g.AgentName] = breachFacts{count: n, costNano: cost}
	}
	return out, records, nil
}
