package apiserver

import (
	"context"
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
)

// anomalyRanges are the windows GET /v1/analytics/anomalies takes: whole
// days are judged, so an hour or a day is too short to ask for.
var anomalyRanges = []analytics.Range{analytics.Range7d, analytics.Range30d, analytics.Range90d}

// analyticsAnomalies is GET /v1/analytics/anomalies.
func (s *Server) analyticsAnomalies(r *http.Request) (wire.AnomalyList, error) {
	q := r.URL.Query().Get("range")
	if q == "" {
		q = string(analytics.Range30d)
	}
	rng, err := analytics.ParseRange(q, anomalyRanges)
	if err != nil {
		return wire.AnomalyList{}, err
	}
	project := callerOf(r).ProjectID
	w := analytics.Window(rng, s.Now())
	found, err := s.findAnomalies(r.Context(), project, w)
	if err != nil {
		return wire.AnomalyList{}, err
	}
	out := wire.AnomalyList{ProjectID: project, Range: string(rng), StartTime: ts(w.Start), EndTime: ts(w.End),
		Anomalies: make([]wire.AnomalyRow, 0, len(found)), Total: len(found),
		Rule: wire.AnomalyRule{WindowDays: anomaly.Window, MinBaselineDays: anomaly.MinBaseline, K: anomaly.K,
			SpreadFloorPercent: anomaly.SpreadFloorPercent, MinRatio: anomaly.MinRatio, MinSpend: money(anomaly.MinSpend)}}
	for _, a := range found {
		out.Anomalies = append(out.Anomalies, anomalyRow(a))
	}
	return out, nil
}

// findAnomalies judges the UTC days the window touches, of the project
// and of each agent (reports.Anomalies).
func (s *Server) findAnomalies(ctx context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error) {
	return s.reports().Anomalies(ctx, project, w)
}

func anomalyRow(a anomaly.Scoped) wire.AnomalyRow {
	row := wire.AnomalyRow{Day: a.Day.Format(dayFormat), Scope: "project", Spend: money(a.Nano),
		BaselineMedian: money(a.Median), BaselineSpread: money(a.Spread), Threshold: money(a.Threshold),
		BaselineDays: a.BaselineDays}
	if !a.Project() {
		agent := a.Agent
		row.Scope, row.AgentName = "agent", &agent
	}
	return row
}

// overviewAnomalies are the anomalous days of the window of the project's
// spend, or of agent's when the report is narrowed to one: the overview's
// signal.
func (s *Server) overviewAnomalies(ctx context.Context, project, agent string, w analytics.Span) ([]wire.AnomalyRow, error) {
	found, err := s.signalsOf(ctx, project, w)
	if err != nil {
		return nil, err
	}
	out := []wire.AnomalyRow{}
	for _, a := range found {
		if a.Agent == agent {
			out = append(out, anomalyRow(a))
		}
	}
	return out, nil
}

// addAgentAnomalies gives each agent row its anomalous days of the window.
func (s *Server) addAgentAnomalies(ctx context.Context, project string, w analytics.Span, rows []wire.AgentSummaryRow) error {
	if len(rows) == 0 {
		return nil
	}
	found, err := s.signalsOf(ctx, project, w)
	if err != nil {
		return err
	}
	byAgent := map[string][]wire.AnomalyRow{}
	for _, a := range found {
		if !a.Project() {
			byAgent[a.Agent] = append(byAgent[a.Agent], anomalyRow(a))
		}
	}
	for i := range rows {
		rows[i].Anomalies = byAgent[rows[i].AgentName]
		if rows[i].Anomalies == nil {
			rows[i].Anomalies = []wire.AnomalyRow{}
		}
	}
	return nil
}
