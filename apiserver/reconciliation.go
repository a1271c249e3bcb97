package apiserver

import (
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/reconcile"
)

// reconRanges are the windows of the reconciliation report, in whole UTC
// days ending today.
var reconRanges = map[string]int{"7d": 7, "30d": 30, "90d": 90}

// reconWindow reads range (7d, 30d or 90d; 30d by default) or month
// (YYYY-MM, a calendar month: what an invoice covers), never both.
func (s *Server) reconWindow(r *http.Request) (from, to time.Time, err error) {
	q := r.URL.Query()
	today := providers.Day(s.Now())
	if m := q.Get("month"); m != "" {
		if q.Get("range") != "" {
			return from, to, apierr.Field("month", "cannot be sent with range: send one of them")
		}
		first, perr := time.Parse("2006-01", m)
		if perr != nil || first.After(today) {
			return from, to, apierr.Field("month", "must be a month as YYYY-MM, not in the future")
		}
		to = first.AddDate(0, 1, 0)
		if to.After(today) {
			to = today.AddDate(0, 0, 1)
		}
		return first, to, nil
	}
	rng := q.Get("range")
	if rng == "" {
		rng = "30d"
	}
	days, ok := reconRanges[rng]
	if !ok {
		return from, to, apierr.Field("range", "must be one of 7d, 30d, 90d")
	}
	to = today.AddDate(0, 0, 1)
	return to.AddDate(0, 0, -days), to, nil
}

// reconciliation builds the report of the caller's project
// (reports.Reconciliation).
func (s *Server) reconciliation(r *http.Request) (wire.ReconReport, error) {
	from, to, err := s.reconWindow(r)
	if err != nil {
		return wire.ReconReport{}, err
	}
	rec, err := s.reports().Reconciliation(r.Context(), callerOf(r).ProjectID, from, to)
	if err != nil {
		return wire.ReconReport{}, err
	}
	out := wire.ReconReport{From: ts(from), To: ts(to), Rows: make([]wire.ReconRow, len(rec.Rows)),
		Summary: reconSummary(rec.Summary, rec.Connections, from, to)}
	for i, row := range rec.Rows {
		out.Rows[i] = reconRow(row)
	}
	return out, nil
}

// reconciliationReport is GET /v1/reconciliation: per day and model, and
// the summary.
func (s *Server) reconciliationReport(r *http.Request) (wire.ReconReport, error) {
	return s.reconciliation(r)
}

// reconciliationSummary is GET /v1/reconciliation/summary.
func (s *Server) reconciliationSummary(r *http.Request) (wire.ReconSummary, error) {
	rep, err := s.reconciliation(r)
	return rep.Summary, err
}

func reconSummary(sum reconcile.Summary, conns []postgres.Connection, from, to time.Time) wire.ReconSummary {
	out := wire.ReconSummary{From: ts(from), To: ts(to), ProviderCost: money(sum.ProviderNano), LLMCostCost: money(sum.LLMCostNano),
		Difference: money(sum.DifferenceNano), DifferencePercent: percentOf(sum.DifferenceNano, sum.ProviderNano),
		UncomparedCost: money(sum.UncomparedNano), ExcludedSubscriptionCost: money(sum.ExcludedNano),
		ByCause: []wire.ReconCause{}, Providers: []wire.ReconProvider{}}
	for _, c := range sum.ByCause {
		out.ByCause = append(out.ByCause, wire.ReconCause{Cause: c.Cause, Rows: c.Rows, Difference: money(c.DifferenceNano)})
	}
	status := map[string]postgres.Connection{}
	for _, c := range conns {
		status[c.Provider] = c
	}
	for _, p := range sum.Providers {
		c := status[p.Provider]
		rp := wire.ReconProvider{Provider: p.Provider, ProviderCost: money(p.ProviderNano), LLMCostCost: money(p.LLMCostNano),
			Difference: money(p.DifferenceNano), DifferencePercent: percentOf(p.DifferenceNano, p.ProviderNano),
			UncomparedCost: money(p.UncomparedNano), ExcludedSubscriptionCost: money(p.ExcludedNano),
			TolerancePercent: jsonPercent(p.ToleranceBP), WithinTolerance: p.WithinTolerance, DaysNotFinal: p.DaysNotFinal,
			SyncStatus: c.SyncStatus, LastSyncError: c.LastSyncError}
		if c.LastSyncAt != nil {
			v := ts(*c.LastSyncAt)
			rp.LastSyncAt = &v
		}
		out.Providers = append(out.Providers, rp)
	}
	return out
}
