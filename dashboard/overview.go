package dashboard

import (
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// overviewData is the overview page's record.
type overviewData struct {
	Overview    wire.Overview
	Metered     wire.Money
	Cache       wire.CacheReport
	Budget      wire.BudgetState
	Chart       string
	Gauge       string
	AgentsChart string
	Empty       bool
	Curl        curlData
	// Lag is how far each merger is behind with this project's calls
	// (none when no gate runs).
	Lag []mergeLagRow
}

// mergeLagRow is one merger's backlog of the project and of the
// deployment, as the overview shows it.
type mergeLagRow struct {
	Merger, Unit        string
	Project, Deployment int64
	// ProjectMS and MS are the age of the oldest item waiting.
	ProjectMS, MS float64
}

// mergeLag is the gate's latest lag of every merger for project.
func mergeLag(g *backlog.Gate, project string) []mergeLagRow {
	if g == nil {
		return nil
	}
	snap := g.Snapshot()
	units := map[backlog.Merger]string{backlog.Rollups: "calls", backlog.Runs: "runs", backlog.Alerts: "alert batches"}
	out := make([]mergeLagRow, 0, len(backlog.Mergers))
	for _, m := range backlog.Mergers {
		mine, all := snap.Project(m, project), snap.Lags[m]
		out = append(out, mergeLagRow{Merger: string(m), Unit: units[m], Project: mine.Backlog, Deployment: all.Backlog,
			ProjectMS: mine.Seconds * 1000, MS: all.Seconds * 1000})
	}
	return out
}

func (d *Dashboard) overviewPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var full wire.FullAnalytics
	var data overviewData
	if err := all(pd.tagPicker, into(&full, func() (wire.FullAnalytics, error) { return pd.api.full(pd.tagged(8)) }),
		into(&data.Cache, func() (wire.CacheReport, error) { return pd.api.cache(pd.tagged(0)) }),
		into(&data.Budget, func() (wire.BudgetState, error) { return pd.api.budgetState(pd.pg.ProjectID) })); err != nil {
		return "", nil, err
	}
	data.Overview, data.Empty = full.Overview, full.Overview.TotalCalls == 0
	data.Metered = full.Overview.TotalCost - full.Overview.SubscriptionCost
	data.Curl = d.curl(pd.r, pd.pg.ProjectID, "")
	data.Lag = mergeLag(d.Backlog, pd.pg.ProjectID)
	pts := make([]svgchart.Point, len(full.Timeseries))
	for i, p := range full.Timeseries {
		pts[i] = svgchart.Point{Label: web.Tick(p.Timestamp, pd.pg.Range), Value: p.Cost.USD(), Title: web.USD(p.Cost)}
	}
	data.Chart = svgchart.Line("Spend over time", pts, web.Dollars, svgchart.Size{W: 640, H: 220})
	bars := make([]svgchart.Point, 0, len(full.Agents))
	for _, a := range full.Agents {
		bars = append(bars, svgchart.Point{Label: a.AgentName, Value: a.TotalCost.USD(), Title: web.USD(a.TotalCost)})
	}
	data.AgentsChart = svgchart.Bars("Top agents by spend", bars, svgchart.Size{W: 1100, H: float64(max(len(bars), 1)) * 26})
	data.Gauge = budgetGauge(data.Budget)
	return "overview", data, nil
}

// budgetGauge draws how much of the budget is used, with its thresholds;
// none without a budget.
func budgetGauge(b wire.BudgetState) string {
	if b.UtilizationPercent == nil {
		return ""
	}
	th := make([]float64, len(b.Thresholds))
	for i, t := range b.Thresholds {
		th[i] = float64(t)
	}
	title := "Budget used: " + web.Percent(b.UtilizationPercent)
	if b.ForecastMonthEnd != nil && b.Budget != nil && *b.Budget > 0 {
		// Drawing only: the percent is a float of two exact amounts.
		projected := b.ForecastMonthEnd.USD() / b.Budget.USD() * 100
		return svgchart.GaugeProjected(title+", projected by the month's end: "+web.USD(*b.ForecastMonthEnd),
			*b.UtilizationPercent, projected, th, svgchart.Size{W: 320, H: 46})
	}
	return svgchart.Gauge(title, *b.UtilizationPercent, th, svgchart.Size{W: 320, H: 46})
}
