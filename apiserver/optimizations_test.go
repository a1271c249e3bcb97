package apiserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/llmcost/llmcost/apiserver/wire"
)

// TestOptimizations checks the suggestions of the signal dataset over 30
// days and that the summary totals them.
func TestOptimizations(t *testing.T) {
	e, u := agentsEnv(t)
	r := e.must(e.do("GET", "/v1/optimizations", u.Key, nil), 200)
	var list []wire.Optimization
	if err := json.Unmarshal([]byte(r.Raw), &list); err != nil {
		t.Fatal(err)
	}
	// The classifier's tokens priced at claude-haiku-4-5 ($1 in, $5 out per
	// M): 100,000 × 1,000 + 511 × 5,000 nano; it paid 99 × 3,075,000 +
	// 3,240,000. The 99-call agent's outputs never exceed 256 tokens.
	classifier := 99*3_075_000 + 3_240_000 - (100_000*1_000 + 511*5_000)
	classifier99 := 99*3_075_000 - (99_000*1_000 + 495*5_000)
	want := []string{
		fmt.Sprintf("model_downgrade classifier claude-sonnet-4-5 %s high", nano(int64(classifier))),
		fmt.Sprintf("model_downgrade classifier99 claude-sonnet-4-5 %s high", nano(int64(classifier99))),
		"repeated_work looper - 0.2 high",
		"repeated_work guarded - 0.05 medium",
		"failed_spend looper - 0.05 medium",
		"failed_spend flaky - 0.01 medium",
		// 2 × 1,000 repeated prompt tokens × ($3 − $0.30) per M.
		"prompt_cache looper claude-sonnet-4-5 0.0054 low",
	}
	var total float64
	high := 0
	for i, s := range list {
		model := "-"
		if s.Model != nil {
			model = *s.Model
		}
		got := fmt.Sprintf("%s %s %s %s %s", s.Type, s.AgentName, model, s.EstimatedSavingsMonthly, s.Priority)
		if i >= len(want) || got != want[i] {
			t.Errorf("#%d %s", i, got)
		}
		if s.Title == "" || s.Description == "" || len(s.ActionItems) == 0 || s.EstimatedSavingsPercent == nil {
			t.Errorf("#%d incomplete: %+v", i, s)
		}
		v := s.EstimatedSavingsMonthly.USD()
		total += v
		if s.Priority == "high" {
			high++
		}
	}
	if len(list) != len(want) {
		t.Fatalf("%d suggestions: %s", len(list), r.Raw)
	}
	if list[0].EstimatedSavingsMonthly.String() != "0.20511" {
		t.Errorf("classifier saving %s, want 0.20511 (to the cent 0.21)", list[0].EstimatedSavingsMonthly)
	}
	var sum wire.OptimizationSummary
	if err := json.Unmarshal([]byte(e.must(e.do("GET", "/v1/optimizations/summary", u.Key, nil), 200).Raw), &sum); err != nil {
		t.Fatal(err)
	}
	// 723,460,000 of the project's 1,865,090,000 over 30 days.
	if got := sum.TotalPotentialSavingsMonthly.USD(); fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", total) ||
		sum.TotalPotentialSavingsMonthly.String() != "0.72346" || sum.SuggestionCount != len(list) || sum.HighPriorityCount != high ||
		*sum.TotalPotentialSavingsPercent != 38.79 {
		t.Errorf("summary %+v (percent %v), list total %v, high %d", sum, *sum.TotalPotentialSavingsPercent, total, high)
	}
	// A project without calls: nothing to suggest.
	other := e.register("opt-empty")
	if r := e.must(e.do("GET", "/v1/optimizations/summary", other.Key, nil), 200); r.Body["suggestion_count"] != 0.0 ||
		r.Body["total_potential_savings_percent"] != nil {
		t.Errorf("empty summary %s", r.Raw)
	}
}

// nano writes nano-USD as the API writes dollars.
func nano(n int64) string { return money(n).String() }
