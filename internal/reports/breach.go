package reports

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/llmcost/llmcost/internal/analytics"
)

// Breach is an agent's guardrail breaches over a window: how many
// (breaching calls plus runs over a limit, the compliance record's counts)
// and the cost at stake.
type Breach struct {
	Count, CostNano int64
}

// breaches judges the guardrails (of the agents in only, when not nil)
// over rng, as the compliance report does ([now − range, now)), returns
// each guarded agent's compliance, and prices the breaches: the cost of
// the distinct calls that used an undeclared or write tool in a read-only
// agent, or an undeclared model, plus the calls of runs over a per-run
// limit not already counted (docs/agent-view.md).
func (rs *Reports) breaches(ctx context.Context, project string, rng analytics.Range,
	only map[string]bool) (map[string]Breach, map[string]*AgentCompliance, error) {
	c, err := rs.Compliance(ctx, project, rng, only)
	if err != nil {
		return nil, nil, err
	}
	records := map[string]*AgentCompliance{}
	breaching := make([]*AgentCompliance, 0, len(c.Agents))
	for i := range c.Agents {
		rec := &c.Agents[i]
		g := rec.Guardrail.Guardrail
		records[g.AgentName] = rec
		if g.Enabled && len(rec.Breaches) > 0 {
			breaching = append(breaching, rec)
		}
	}
	// The amounts do not depend on each other: they are read at once, at
	// most detailReads at a time, so the summary waits about as long as
	// the dearest of them rather than for their sum.
	found := make([]Breach, len(breaching))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(detailReads)
	for i, rec := range breaching {
		g.Go(func() error {
			for _, b := range rec.Breaches {
				found[i].Count += b.Count
			}
			tools, models, traces := breachSubjects(rec)
			cost, err := rs.DB.BreachCost(gctx, project, rec.Guardrail.AgentName, c.From, c.To, tools, models, traces)
			found[i].CostNano = cost
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	out := make(map[string]Breach, len(breaching))
	for i, rec := range breaching {
		out[rec.Guardrail.AgentName] = found[i]
	}
	return out, records, nil
}

// breachSubjects are what the breach cost sums the calls of: the tools
// that are a breach, the models not permitted, and the runs over a
// per-run limit.
func breachSubjects(rec *AgentCompliance) (tools, models, traces []string) {
	g := rec.Guardrail.Guardrail
	for _, u := range rec.Tools {
		if u.Breach != "" {
			tools = append(tools, u.Key)
		}
	}
	for _, m := range rec.Models {
		if !m.Permitted {
			models = append(models, m.Key)
		}
	}
	for _, r := range rec.runs {
		over := (g.MaxToolCallsPerRun != nil && r.ToolCalls > *g.MaxToolCallsPerRun) ||
			(g.MaxCostPerRunNano != nil && r.CostNano > *g.MaxCostPerRunNano)
		if over {
			traces = append(traces, r.TraceID)
		}
	}
	return tools, models, traces
}
