package reports

import (
	"context"

	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Suggestions are the optimisation suggestions of a project (docs/agent-view.md
// "Optimisations"), largest saving first, and the 30-day spend their
// percentages are of.
type Suggestions struct {
	List      []agentview.Suggestion
	SpendNano int64
}

// Suggestions reads every agent's last 30 days (agents and their models
// from the rollups, repeated work from the run tables) and suggests; the
// savings are per month, so the window is one.
func (rs *Reports) Suggestions(ctx context.Context, project string) (Suggestions, error) {
	w := analytics.Window(analytics.Range30d, rs.Now())
	seg := analytics.Decompose(w, analytics.Day)
	res, err := rs.DB.ReadWindows(ctx, postgres.WindowQuery{ProjectID: project, Dim: "agent", Segments: seg},
		postgres.WindowQuery{ProjectID: project, Dim: "model", PerAgent: true, Segments: seg})
	if err != nil {
		return Suggestions{}, err
	}
	runsOf, err := rs.DB.ReadAgentRuns(ctx, postgres.RunQuery{ProjectID: project, Start: w.Start, End: w.End})
	if err != nil {
		return Suggestions{}, err
	}
	agents := agentUsage(res[0].Keys, modelsByAgent(res[1].Keys, ""), runsOf)
	return Suggestions{List: agentview.Suggest(rs.Catalogue.Load(), agents), SpendNano: res[0].AllCostNano}, nil
}

// agentUsage combines each agent's spend, its models' and its runs'
// repeated work into what the suggestions judge.
func agentUsage(keys []analytics.Keyed, models map[string][]analytics.Keyed,
	runsOf map[string]*postgres.AgentRuns) []agentview.AgentUsage {
	agents := make([]agentview.AgentUsage, 0, len(keys))
	for _, a := range keys {
		u := agentview.AgentUsage{Agent: a.Key, CostNano: a.CostNano, FailedCalls: a.Calls - a.SuccessCalls,
			FailedCost: a.FailedCostNano}
		ar := runsOf[a.Key]
		if ar != nil {
			u.RepeatedCost, u.RepeatedRuns = ar.RepeatedNano, ar.RepeatedRuns
		}
		for _, m := range models[a.Key] {
			mu := agentview.ModelUsage{Model: m.Key, Calls: m.Calls, CostNano: m.CostNano, Tokens: tokensOf(m.Sums),
				OutputOver16Calls: m.OutputOver16Calls, OutputOver256Calls: m.OutputOver256Calls}
			if ar != nil {
				mu.RepeatedPromptTokens = ar.RepeatedInput[m.Key]
			}
			u.Models = append(u.Models, mu)
		}
		agents = append(agents, u)
	}
	return agents
}
