package apiserver

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/web"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// The agent pages read the agent view routes (docs/agent-view.md):
// the summary table with change arrows and signal badges, one agent's
// detail, and the optimisation suggestions.

type agentsData struct {
	Agents []AgentSummaryRow
}

func (s *Server) agentsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data agentsData
	err := d.api(http.MethodGet, "/v1/analytics/agents/summary", nil, d.query("limit", "200"), nil, &data.Agents)
	return "agents", data, err
}

// breakdown is one "top N" table of an agent's detail.
type breakdown struct {
	Name string
	Rows []DimensionRow
}

type agentPageData struct {
	Detail     AgentDetail
	Daily      string
	Histogram  string
	Breakdowns []breakdown
}

// agentPage is one agent's detail: GET /v1/analytics/agents/{agent_name}
// (404 when it made no call in the range, as the API answers).
func (s *Server) agentPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data agentPageData
	name := mux.Vars(d.r)["agent_name"]
	if err := d.api(http.MethodGet, "/v1/analytics/agents/{agent_name:.+}", map[string]string{"agent_name": name}, d.query(), nil, &data.Detail); err != nil {
		return "", nil, err
	}
	a := data.Detail
	pts := make([]svgchart.Point, len(a.Summary.Daily))
	for i, day := range a.Summary.Daily {
		pts[i] = svgchart.Point{Label: day.Day, Value: floatOf(day.Cost), Title: web.USD(day.Cost)}
	}
	data.Daily = svgchart.Line("Spend per day of "+name, pts, func(f float64) string { return web.USD(f) }, svgchart.Size{W: 540, H: 200})
	if a.Distribution != nil {
		data.Histogram = histogram(*a.Distribution, 540)
	}
	data.Breakdowns = []breakdown{{"models", a.ByModel}, {"tools", a.ByTool}, {"workflows", a.ByWorkflow},
		{"users", a.ByUser}, {"sessions", a.BySession}}
	d.pg.Title = name
	return "agent", data, nil
}

type optimizationsData struct {
	Suggestions []Optimization
	Summary     OptimizationSummary
}

func (s *Server) optimizationsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data optimizationsData
	err := d.reads(pageRead{"/v1/optimizations", nil, d.query(), &data.Suggestions},
		pageRead{"/v1/optimizations/summary", nil, d.query(), &data.Summary})
	return "optimizations", data, err
}
