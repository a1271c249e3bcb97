package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/web"
	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// The read pages: each is a few REST reads of the picked project and
// range, in process (dashboard.go), and a template.

type overviewData struct {
	Overview    Overview
	Metered     json.Number
	Cache       CacheReport
	Budget      BudgetState
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

// floatOf is a JSON number as a float, for drawing only.
func floatOf(n json.Number) float64 { f, _ := n.Float64(); return f }

// minus is a − b of two money values, exactly (nano-USD).
func minus(a, b json.Number) json.Number {
	x, _ := pricing.ParseCostNano(a.String())
	y, _ := pricing.ParseCostNano(b.String())
	return money(x - y)
}

func (s *Server) overviewPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var full FullAnalytics
	var data overviewData
	if err := d.reads(pageRead{"/v1/analytics/full", nil, d.query("limit", "8"), &full},
		pageRead{"/v1/analytics/cache", nil, d.query(), &data.Cache},
		pageRead{"/v1/projects/{project_id}/budget-state", d.vars(), nil, &data.Budget}); err != nil {
		return "", nil, err
	}
	data.Overview, data.Empty = full.Overview, full.Overview.TotalCalls == 0
	data.Metered = minus(full.Overview.TotalCost, full.Overview.SubscriptionCost)
	data.Curl = s.curl(d.r, d.pg.ProjectID, "")
	data.Lag = mergeLag(s.Backlog, d.pg.ProjectID)
	pts := make([]svgchart.Point, len(full.Timeseries))
	for i, p := range full.Timeseries {
		pts[i] = svgchart.Point{Label: web.Tick(p.Timestamp, d.pg.Range), Value: floatOf(p.Cost), Title: web.USD(p.Cost)}
	}
	data.Chart = svgchart.Line("Spend over time", pts, func(f float64) string { return web.USD(f) }, svgchart.Size{W: 640, H: 220})
	bars := make([]svgchart.Point, 0, len(full.Agents))
	for _, a := range full.Agents {
		bars = append(bars, svgchart.Point{Label: a.AgentName, Value: floatOf(a.TotalCost), Title: web.USD(a.TotalCost)})
	}
	data.AgentsChart = svgchart.Bars("Top agents by spend", bars, svgchart.Size{W: 1100, H: float64(max(len(bars), 1)) * 26})
	if b := data.Budget; b.UtilizationPercent != nil {
		th := make([]float64, len(b.Thresholds))
		for i, t := range b.Thresholds {
			th[i] = float64(t)
		}
		data.Gauge = svgchart.Gauge("Budget used: "+web.Percent(b.UtilizationPercent), *b.UtilizationPercent, th, svgchart.Size{W: 320, H: 46})
	}
	return "overview", data, nil
}

type workflowsData struct {
	Workflows    []WorkflowRow
	Outcomes     []OutcomeRow
	Steps        []StepRow
	Repeated     []RepeatedWorkRow
	Distribution *Distribution
	Histogram    string
}

func (s *Server) workflowsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data workflowsData
	q := d.query("limit", "20")
	var dist Distribution
	distErr := make(chan error, 1)
	// The distribution (of the highest-spend workflow) is 404 when no
	// workflow has runs: read beside the others, it is not an error.
	go func() {
		distErr <- d.api(http.MethodGet, "/v1/analytics/workflows/distribution", nil, d.query(), nil, &dist)
	}()
	err := d.reads(pageRead{"/v1/analytics/workflows", nil, q, &data.Workflows},
		pageRead{"/v1/analytics/workflows/outcomes", nil, q, &data.Outcomes},
		pageRead{"/v1/analytics/workflows/steps", nil, q, &data.Steps},
		pageRead{"/v1/analytics/workflows/repeated-work", nil, q, &data.Repeated})
	derr := <-distErr
	switch {
	case err != nil:
		return "", nil, err
	case derr == nil:
		data.Distribution, data.Histogram = &dist, histogram(dist, 1100)
	case !isNotFound(derr):
		return "", nil, derr
	}
	return "workflows", data, nil
}

// histogram draws a distribution's buckets, the tail marked.
func histogram(dist Distribution, width float64) string {
	bs := make([]svgchart.Bucket, len(dist.Histogram))
	for i, h := range dist.Histogram {
		bs[i] = svgchart.Bucket{Label: web.USD(h.Lower) + "–" + web.USD(h.Upper), Count: h.Count, Tail: h.IsTail}
	}
	return svgchart.Histogram("Cost per run of "+dist.Workflow, bs, svgchart.Size{W: width, H: width / 5})
}

type tracesData struct{ Traces []TraceRow }

func (s *Server) tracesPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data tracesData
	q := d.query("limit", "50")
	if wf := d.r.URL.Query().Get("workflow"); wf != "" {
		q.Set("workflow", wf)
	}
	if err := d.api(http.MethodGet, "/v1/analytics/traces", nil, q, nil, &data.Traces); err != nil {
		return "", nil, err
	}
	return "traces", data, nil
}

type traceData struct {
	Trace     TraceDetail
	Waterfall string
}

// tracePage draws a run as a waterfall: spans in tree order (children
// under their parent, by step index), indented by depth. The API gives
// each call's latency but not its start, so bars are laid one after
// another in step order: a picture of where the time and money went, not
// of overlap (docs/dashboard.md).
func (s *Server) tracePage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data traceData
	id := mux.Vars(d.r)["trace_id"]
	if err := d.api(http.MethodGet, "/v1/analytics/traces/{trace_id}", map[string]string{"trace_id": id}, d.query(), nil, &data.Trace); err != nil {
		return "", nil, err
	}
	data.Trace.Spans = treeOrder(data.Trace.Spans)
	spans, at := make([]svgchart.Span, len(data.Trace.Spans)), 0.0
	for i, sp := range data.Trace.Spans {
		lat := 0.0
		if sp.LatencyMS != nil {
			lat = float64(*sp.LatencyMS)
		}
		label := sp.Model
		if sp.StepName != nil {
			label = *sp.StepName + " · " + sp.Model
		}
		if sp.ToolName != nil {
			label += " · " + *sp.ToolName
		}
		spans[i] = svgchart.Span{Label: label, Title: web.USD(sp.Cost) + ", " + web.Millis(sp.LatencyMS), Depth: int(sp.Depth),
			Start: at, Length: lat, Failed: !sp.Success}
		at += lat
	}
	data.Waterfall = svgchart.Waterfall("Trace "+id, spans, 1000)
	return "trace", data, nil
}

// treeOrder puts children right after their parent, siblings by step
// index; spans whose parent is not in the trace are roots.
func treeOrder(spans []SpanRow) []SpanRow {
	ids := map[string]bool{}
	for _, sp := range spans {
		ids[sp.SpanID] = true
	}
	children := map[string][]SpanRow{}
	for _, sp := range spans {
		parent := ""
		if sp.ParentSpanID != nil && ids[*sp.ParentSpanID] && *sp.ParentSpanID != sp.SpanID {
			parent = *sp.ParentSpanID
		}
		children[parent] = append(children[parent], sp)
	}
	out := make([]SpanRow, 0, len(spans))
	seen := map[string]bool{}
	var walk func(parent string)
	walk = func(parent string) {
		for _, sp := range children[parent] {
			if seen[sp.SpanID] {
				continue
			}
			seen[sp.SpanID] = true
			out = append(out, sp)
			walk(sp.SpanID)
		}
	}
	walk("")
	for _, sp := range spans { // cycles: keep every span
		if !seen[sp.SpanID] {
			out = append(out, sp)
		}
	}
	return out
}

type guardrailsData struct{ Compliance Compliance }

func (s *Server) guardrailsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data guardrailsData
	err := d.api(http.MethodGet, "/v1/guardrails/compliance", nil, d.query(), nil, &data.Compliance)
	return "guardrails", data, err
}

type modelsData struct {
	Models []ModelRow
	Cache  CacheReport
	Chart  string
}

func (s *Server) modelsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var data modelsData
	if err := d.reads(pageRead{"/v1/analytics/models", nil, d.query("limit", "50"), &data.Models},
		pageRead{"/v1/analytics/cache", nil, d.query(), &data.Cache}); err != nil {
		return "", nil, err
	}
	bars := make([]svgchart.Point, 0, len(data.Models))
	for _, m := range data.Models {
		bars = append(bars, svgchart.Point{Label: m.Model, Value: floatOf(m.TotalCost), Title: web.USD(m.TotalCost)})
	}
	data.Chart = svgchart.Bars("Spend by model", bars, svgchart.Size{W: 1100, H: float64(max(len(bars), 1)) * 26})
	return "models", data, nil
}
