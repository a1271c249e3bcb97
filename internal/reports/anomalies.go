package reports

import (
	"context"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Anomalies judges the UTC days window w touches, of the project and of
// each agent (docs/forecast.md), in one read of their daily metered spend
// reaching the baseline window before the first day.
func (rs *Reports) Anomalies(ctx context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error) {
	from := forecast.DayOf(w.Start)
	rows, err := rs.DB.DailySpend(ctx, project, from.AddDate(0, 0, -anomaly.Window), w.End)
	if err != nil {
		return nil, err
	}
	return anomaly.FindScopes(AgentSeries(rows), from, w.End), nil
}

// AgentSeries groups daily rows by agent.
func AgentSeries(rows []postgres.AgentDay) map[string][]forecast.Day {
	out := map[string][]forecast.Day{}
	for _, r := range rows {
		out[r.Agent] = append(out[r.Agent], forecast.Day{Date: r.Day, Nano: r.Nano})
	}
	return out
}
