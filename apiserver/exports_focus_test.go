package apiserver

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/event"
)

func TestExportFocusMatchesSpend(t *testing.T) {
	e := newEnv(t)
	u := e.register("focus")
	now := e.clock.Now()
	// Calls on yesterday's UTC day, so grouping by day does not depend on
	// the hour the test runs at.
	y := now.Truncate(24 * time.Hour).Add(-24 * time.Hour)
	calls := []event.Event{
		{EventID: "f1", AgentName: "planner", Model: "claude-sonnet-4-5", InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100,
			CostNano: 4_500_000, CatalogueCostNano: 4_500_000, Priced: true, Success: true, Timestamp: y.Add(10 * time.Hour)},
		// A discounted call: billed what the client states, listed at the catalogue's price.
		{EventID: "f2", AgentName: "planner", Model: "claude-sonnet-4-5", InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100,
			CostNano: 4_000_000, CostProvided: true, CatalogueCostNano: 4_500_000, Priced: true, Success: true, Timestamp: y.Add(11 * time.Hour)},
		{EventID: "f3", AgentName: "coder", Model: "gpt-4o", InputTokens: 500, OutputTokens: 50, TotalTokens: 550,
			CostNano: 1_750_000, CatalogueCostNano: 1_750_000, Priced: true, Success: true, Timestamp: y.Add(-36 * time.Hour)},
		// A flat-plan call: listed at its cost, billed nothing.
		{EventID: "f4", AgentName: "coder", Model: "claude-sonnet-4-5", InputTokens: 2000, OutputTokens: 200, TotalTokens: 2200,
			CostNano: 9_000_000, CatalogueCostNano: 9_000_000, Priced: true, Success: true, Billing: "subscription", Timestamp: y.Add(12 * time.Hour)},
		{EventID: "f5", AgentName: "coder", Model: "not-in-any-catalogue", InputTokens: 10, OutputTokens: 1, TotalTokens: 11,
			Success: true, Timestamp: y.Add(13 * time.Hour)},
	}
	for i := range calls {
		calls[i].ProjectID, calls[i].Source = u.ProjectID, "batch"
	}
	if _, err := e.db.Write(context.Background(), calls, nil); err != nil {
		t.Fatal(err)
	}
	var ov wire.Overview
	mustJSON(t, e.must(e.do("GET", "/v1/analytics/overview?range=7d", u.Key, nil), 200).Raw, &ov)

	from, to := now.Add(-7*24*time.Hour), now
	rec := e.raw("/v1/exports/focus?from="+url.QueryEscape(from.Format(time.RFC3339))+"&to="+url.QueryEscape(to.Format(time.RFC3339)), u.Key, nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("focus: %d %s", rec.Code, rec.Body.String())
	}
	header, rows := readCSV(t, rec.Body)
	if billed := sumUSD(t, column(t, header, rows, "BilledCost")); billed != int64(ov.TotalCost-ov.SubscriptionCost) {
		t.Errorf("BilledCost sums to %d, the spend report's metered spend is %d", billed, ov.TotalCost-ov.SubscriptionCost)
	}
	if contracted := sumUSD(t, column(t, header, rows, "ContractedCost")); contracted != int64(ov.TotalCost) {
		t.Errorf("ContractedCost sums to %d, the spend report's total is %d", contracted, ov.TotalCost)
	}
	if list := sumUSD(t, column(t, header, rows, "ListCost")); list != int64(ov.TotalCost)+500_000 {
		t.Errorf("ListCost sums to %d, want the total plus the discount", list)
	}
	billing, billed, listed, provider := column(t, header, rows, "x_BillingType"), column(t, header, rows, "BilledCost"),
		column(t, header, rows, "ListCost"), column(t, header, rows, "ProviderName")
	var flat int
	for i := range rows {
		if billing[i] == "subscription" {
			flat++
			if billed[i] != "0" || listed[i] != "0.009" || provider[i] != "Anthropic" {
				t.Errorf("flat-plan row billed %s, listed %s, provider %s", billed[i], listed[i], provider[i])
			}
		}
	}
	// planner's two calls are one row; coder's three are on two days and two models.
	if flat != 1 || len(rows) != 4 {
		t.Errorf("%d rows, %d flat: %v", len(rows), flat, rows)
	}
}
