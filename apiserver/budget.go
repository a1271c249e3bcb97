package apiserver

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// DefaultThresholds apply when a budget names none.
var DefaultThresholds = []int32{50, 80, 100}

// putBudget is PUT /v1/projects/{project_id}/budget; it answers the state.
func (s *Server) putBudget(w http.ResponseWriter, r *http.Request) error {
	var req wire.BudgetRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	b, err := budgetOf(req)
	if err != nil {
		return err
	}
	project := callerOf(r).ProjectID
	if err := s.DB.PutBudget(r.Context(), project, b); err != nil {
		return err
	}
	state, err := s.budgetState(r, project)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, state)
}

// budgetOf checks a budget request and makes it the stored budget.
func budgetOf(req wire.BudgetRequest) (postgres.Budget, error) {
	b := postgres.Budget{Enabled: true, Mode: req.Mode, Thresholds: req.Thresholds}
	if req.Enabled != nil {
		b.Enabled = *req.Enabled
	}
	if b.Mode == "" {
		b.Mode = "warn"
	}
	if b.Mode != "warn" && b.Mode != "hard_cap" {
		return b, apierr.Field("mode", "must be warn or hard_cap")
	}
	if req.Budget == nil {
		return b, apierr.Field("budget", "is required: a positive number of USD")
	}
	nano, err := pricing.ParseCostNano(req.Budget.String())
	if err != nil || nano <= 0 || nano > pricing.MaxProjectTotal {
		// Above what a project's calls may sum to, a budget could never be
		// reached (docs/api.md, Bounds).
		return b, apierr.Field("budget", "must be a positive number of USD, at most "+pricing.FormatUSD(pricing.MaxProjectTotal))
	}
	b.BudgetNano = nano
	if b.Thresholds == nil {
		b.Thresholds = DefaultThresholds
	}
	for i, t := range b.Thresholds {
		if t < 1 || t > 100 {
			return b, apierr.Field(fmt.Sprintf("thresholds[%d]", i), "must be an integer percent from 1 to 100")
		}
		if slices.Contains(b.Thresholds[:i], t) {
			return b, apierr.Field(fmt.Sprintf("thresholds[%d]", i), "repeats an earlier threshold: thresholds must be unique")
		}
	}
	b.Thresholds = slices.Sorted(slices.Values(b.Thresholds))
	return b, nil
}

// getBudgetState is GET /v1/projects/{project_id}/budget-state: two
// primary-key reads, never a scan of events.
func (s *Server) getBudgetState(r *http.Request) (wire.BudgetState, error) {
	return s.budgetState(r, callerOf(r).ProjectID)
}

func (s *Server) budgetState(r *http.Request, project string) (wire.BudgetState, error) {
	now := s.Now().UTC()
	month := postgres.MonthStart(now)
	read, err := s.DB.BudgetState(r.Context(), project, month)
	if err != nil {
		return wire.BudgetState{}, err
	}
	st := wire.BudgetState{ProjectID: project, Currency: "USD", SpendMTD: money(read.SpendNano),
		Thresholds: []int32{}, ThresholdsCrossed: []int32{},
		PeriodEndsAt: ts(alerts.PeriodEnd(month)), AsOf: ts(now)}
	if !read.AsOf.IsZero() {
		// Answered from the cache: the counter as of its last read, plus
		// every batch this instance stored since.
		st.AsOf = ts(read.AsOf)
	}
	s.addForecast(r.Context(), &st, project, now, read)
	b := read.Budget
	if b == nil {
		return st, nil
	}
	budget, remaining := money(b.BudgetNano), money(max(b.BudgetNano-read.SpendNano, 0))
	util := alerts.Utilization(read.SpendNano, b.BudgetNano)
	st.Enabled, st.Mode, st.Budget, st.Remaining, st.UtilizationPercent = b.Enabled, &b.Mode, &budget, &remaining, &util
	st.Thresholds = b.Thresholds
	if b.Enabled {
		st.ThresholdsCrossed = append(st.ThresholdsCrossed, alerts.Reached(b.BudgetNano, b.Thresholds, read.SpendNano)...)
		st.Exhausted = read.SpendNano >= b.BudgetNano
	}
	return st, nil
}
