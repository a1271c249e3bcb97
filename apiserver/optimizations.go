package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
)

// Optimisation suggestions (docs/agent-view.md "Optimisations"): the last 30
// days of every agent, savings per month (reports.Suggestions).

// optimizations is GET /v1/optimizations: the suggestions, largest saving
// first.
func (s *Server) optimizations(r *http.Request) ([]wire.Optimization, error) {
	sugg, err := s.reports().Suggestions(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Optimization, len(sugg.List))
	for i, x := range sugg.List {
		out[i] = wire.Optimization{Type: x.Type, AgentName: x.Agent, Model: optStr(x.Model), Title: x.Title,
			Description: x.Description, EstimatedSavingsMonthly: money(x.SavingsMonthlyNano),
			EstimatedSavingsPercent: x.SavingsPercent, Priority: x.Priority, ActionItems: x.ActionItems}
	}
	return out, nil
}

// optimizationSummary is GET /v1/optimizations/summary: the totals of the
// same suggestions; the percent is of the project's 30-day spend.
func (s *Server) optimizationSummary(r *http.Request) (wire.OptimizationSummary, error) {
	sugg, err := s.reports().Suggestions(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return wire.OptimizationSummary{}, err
	}
	sum := agentview.Summarise(sugg.List, sugg.SpendNano)
	return wire.OptimizationSummary{TotalPotentialSavingsMonthly: money(sum.TotalSavingsNano),
		TotalPotentialSavingsPercent: sum.TotalPercent, SuggestionCount: sum.SuggestionCount,
		HighPriorityCount: sum.HighPriorityCount}, nil
}
