package dashboard

import (
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// The agent pages read the agent view routes (docs/agent-view.md): the
// summary table with change arrows and signal badges, one agent's detail,
// and the optimisation suggestions.

type agentsData struct {
	Agents []wire.AgentSummaryRow
}

func (d *Dashboard) agentsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var data agentsData
	err := all(pd.tagPicker, into(&data.Agents, func() ([]wire.AgentSummaryRow, error) { return pd.api.agentSummary(pd.tagged(200)) }))
	return "agents", data, err
}

// breakdown is one "top N" table of an agent's detail.
type breakdown struct {
	Name string
	Rows []wire.DimensionRow
}

type agentPageData struct {
	Detail     wire.AgentDetail
	Daily      string
	Histogram  string
	Breakdowns []breakdown
}

// agentPage is one agent's detail (404 when it made no call in the range,
// as the API answers). The detail takes no tag filter: a picked one is kept
// for the links back, and the page says it does not apply.
func (d *Dashboard) agentPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	name := mux.Vars(pd.r)["agent_name"]
	a, err := pd.api.agent(name, pd.report(0))
	if err != nil {
		return "", nil, err
	}
	data := agentPageData{Detail: a}
	pts := make([]svgchart.Point, len(a.Summary.Daily))
	for i, day := range a.Summary.Daily {
		pts[i] = svgchart.Point{Label: day.Day, Value: day.Cost.USD(), Title: web.USD(day.Cost)}
	}
	data.Daily = svgchart.Line("Spend per day of "+name, pts, web.Dollars, svgchart.Size{W: 540, H: 200})
	if a.Distribution != nil {
		data.Histogram = histogram(*a.Distribution, 540)
	}
	data.Breakdowns = []breakdown{{"models", a.ByModel}, {"tools", a.ByTool}, {"workflows", a.ByWorkflow},
		{"users", a.ByUser}, {"sessions", a.BySession}}
	pd.pg.Title = name
	return "agent", data, nil
}

type optimizationsData struct {
	Suggestions []wire.Optimization
	Summary     wire.OptimizationSummary
}

func (d *Dashboard) optimizationsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var data optimizationsData
	q := pd.report(0)
	err := all(into(&data.Suggestions, func() ([]wire.Optimization, error) { return pd.api.optimizations(q) }),
		into(&data.Summary, func() (wire.OptimizationSummary, error) { return pd.api.optimizationSummary(q) }))
	return "optimizations", data, err
}

type guardrailsData struct{ Compliance wire.Compliance }

func (d *Dashboard) guardrailsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	c, err := pd.api.compliance(pd.report(0))
	return "guardrails", guardrailsData{Compliance: c}, err
}

type modelsData struct {
	Models []wire.ModelRow
	Cache  wire.CacheReport
	Chart  string
}

func (d *Dashboard) modelsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var data modelsData
	if err := all(pd.tagPicker, into(&data.Models, func() ([]wire.ModelRow, error) { return pd.api.models(pd.tagged(50)) }),
		into(&data.Cache, func() (wire.CacheReport, error) { return pd.api.cache(pd.tagged(0)) })); err != nil {
		return "", nil, err
	}
	bars := make([]svgchart.Point, 0, len(data.Models))
	for _, m := range data.Models {
		bars = append(bars, svgchart.Point{Label: m.Model, Value: m.TotalCost.USD(), Title: web.USD(m.TotalCost)})
	}
	data.Chart = svgchart.Bars("Spend by model", bars, svgchart.Size{W: 1100, H: float64(max(len(bars), 1)) * 26})
	return "models", data, nil
}
