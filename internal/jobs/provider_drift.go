package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/reconcile"
	"github.com/llmcost/llmcost/internal/webhook"
)

// DriftPayload is the data of a reconciliation.drift delivery.
// Money is USD as a JSON number written from exact nano-USD; difference
// is the provider's cost minus llmcost's, over the month's final days.
type DriftPayload struct {
	ProjectID         string      `json:"project_id"`
	Provider          string      `json:"provider"`
	Month             string      `json:"month"`
	ProviderCost      json.Number `json:"provider_cost"`
	LLMCostCost       json.Number `json:"llmcost_cost"`
	Difference        json.Number `json:"difference"`
	DifferencePercent float64     `json:"difference_percent"`
	TolerancePercent  json.Number `json:"tolerance_percent"`
}

// checkDrift judges the months the sync's window [from, to) touched: a
// month whose final days drift past the connection's tolerance is alerted
// once, across instances (postgres.ClaimDriftAlert).
func (p *ProviderSync) checkDrift(ctx context.Context, c postgres.Connection, from, to, now time.Time) error {
	today := providers.Day(now).AddDate(0, 0, 1)
	for m := postgres.MonthStart(from); m.Before(to); m = m.AddDate(0, 1, 0) {
		end := m.AddDate(0, 1, 0)
		if end.After(today) {
			end = today
		}
		fetched, err := p.DB.ProviderReports(ctx, c.ProjectID, m, end)
		if err != nil {
			return err
		}
		calls, err := p.DB.CallDays(ctx, c.ProjectID, m, end)
		if err != nil {
			return err
		}
		cat := pricing.Builtin()
		if p.Catalogue != nil {
			cat = p.Catalogue()
		}
		rows, _ := reconcile.Build(reconcile.Data{From: m, To: end, Days: fetched.Days, Usage: fetched.Usage,
			Costs: fetched.Costs, Calls: calls, Catalogue: cat, SettleAfter: postgres.SettleAfter,
			Connections: []reconcile.Connection{{Provider: c.Provider, ToleranceBP: c.ToleranceBP}}})
		d := reconcile.MonthDrift(rows, c.Provider, m, c.ToleranceBP)
		if !d.Exceeded() {
			continue
		}
		if err := p.alertDrift(ctx, c, d, now); err != nil {
			return err
		}
	}
	return nil
}

func (p *ProviderSync) alertDrift(ctx context.Context, c postgres.Connection, d reconcile.Drift, now time.Time) error {
	pct, _ := reconcile.Percent(d.DifferenceNano, d.ProviderNano)
	payload := DriftPayload{ProjectID: c.ProjectID, Provider: c.Provider, Month: d.Month.Format("2006-01"),
		ProviderCost: usdNumber(d.ProviderNano), LLMCostCost: usdNumber(d.LLMCostNano),
		Difference: usdNumber(d.DifferenceNano), DifferencePercent: pct,
		TolerancePercent: json.Number(reconcile.FormatBasisPoints(d.ToleranceBP))}
	env, err := webhook.NewEnvelope(webhook.TypeReconciliationDrift, c.ProjectID, payload, now)
	if err != nil {
		return err
	}
	notice := postgres.Notice{Type: webhook.TypeReconciliationDrift, Data: env.Data,
		Title: fmt.Sprintf("%s bill drifts %.2f%% from llmcost in %s", c.Provider, pct, payload.Month),
		Body: fmt.Sprintf("%s billed $%s, llmcost shows $%s (tolerance %s%%): see the reconciliation report",
			c.Provider, payload.ProviderCost, payload.LLMCostCost, payload.TolerancePercent)}
	_, err = p.DB.ClaimDriftAlert(ctx, c.ProjectID, c.Provider, d.Month, notice, env)
	return err
}

func usdNumber(nano int64) json.Number { return json.Number(pricing.FormatUSD(nano)) }
