package apiserver

import (
	"context"
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Optimisation suggestions (docs/agent-view.md "Optimisations"): the last 30
// days of every agent, savings per month.

// optimizations is GET /v1/optimizations: the suggestions, largest saving
// first.
func (s *Server) optimizations(r *http.Request) ([]wire.Optimization, error) {
	sugg, _, err := s.suggest(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Optimization, len(sugg))
	for i, x := range sugg {
		out[i] = wire.Optimization{Type: x.Type, AgentName: x.Agent, Model: optStr(x.Model), Title: x.Title,
			Description: x.Description, EstimatedSavingsMonthly: money(x.SavingsMonthlyNano),
			EstimatedSavingsPercent: x.SavingsPercent, Priority: x.Priority, ActionItems: x.ActionItems}
	}
	return out, nil
}

// optimizationSummary is GET /v1/optimizations/summary: the totals of the
// same suggestions; the percent is of the project's 30-day spend.
func (s *Server) optimizationSummary(r *http.Request) (wire.OptimizationSummary, error) {
	sugg, spend, err := s.suggest(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return wire.OptimizationSummary{}, err
	}
	sum := agentview.Summarise(sugg, spend)
	return wire.OptimizationSummary{TotalPotentialSavingsMonthly: money(sum.TotalSavingsNano),
		TotalPotentialSavingsPercent: sum.TotalPercent, SuggestionCount: sum.SuggestionCount,
		HighPriorityCount: sum.HighPriorityCount}, nil
}

// suggest reads every agent's 30-day figures (agents and their models from
// the rollups, repeated work from the run tables) and returns the
// suggestions and the project's 30-day spend.
func (s *Server) suggest(ctx context.Context, project string) ([]agentview.Suggestion, int64, error) {
	w := analytics.Window(analytics.Range30d, s.Now())
	seg := analytics.Decompose(w, analytics.Day)
	res, err := s.DB.ReadWindows(ctx, postgres.WindowQuery{ProjectID: project, Dim: "agent", Segments: seg},
		postgres.WindowQuery{ProjectID: project, Dim: "model", PerAgent: true, Segments: seg})
	if err != nil {
		return nil, 0, err
	}
	runsOf, err := s.DB.ReadAgentRuns(ctx, postgres.RunQuery{ProjectID: project, Start: w.Start, End: w.End})
	if err != nil {
		return nil, 0, err
	}
	models := modelsByAgent(res[1].Keys, "")
	agents := make([]agentview.AgentUsage, 0, len(res[0].Keys))
	for _, a := range res[0].Keys {
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
	return agentview.Suggest(s.Catalogue.Load(), agents), res[0].AllCostNano, nil
}
