package dashboard

import (
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// The run pages: workflows, the most expensive runs, and one run's
// waterfall.

type workflowsData struct {
	Workflows    []wire.WorkflowRow
	Outcomes     []wire.OutcomeRow
	Steps        []wire.StepRow
	Repeated     []wire.RepeatedWorkRow
	Distribution *wire.Distribution
	Histogram    string
}

func (d *Dashboard) workflowsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var data workflowsData
	q := pd.tagged(20)
	var dist wire.Distribution
	distErr := make(chan error, 1)
	// The distribution (of the highest-spend workflow) is 404 when no
	// workflow has runs: read beside the others, it is not an error.
	go func() {
		var err error
		dist, err = pd.api.distribution(pd.tagged(0))
		distErr <- err
	}()
	err := all(pd.tagPicker, into(&data.Workflows, func() ([]wire.WorkflowRow, error) { return pd.api.workflows(q) }),
		into(&data.Outcomes, func() ([]wire.OutcomeRow, error) { return pd.api.outcomes(q) }),
		into(&data.Steps, func() ([]wire.StepRow, error) { return pd.api.steps(q) }),
		into(&data.Repeated, func() ([]wire.RepeatedWorkRow, error) { return pd.api.repeatedWork(q) }))
	derr := <-distErr
	switch {
	case err != nil:
		return "", nil, err
	case derr == nil:
		data.Distribution, data.Histogram = &dist, histogram(dist, 1100)
	case apierr.As(derr).Code != apierr.NotFound:
		return "", nil, derr
	}
	return "workflows", data, nil
}

// histogram draws a distribution's buckets, the tail marked.
func histogram(dist wire.Distribution, width float64) string {
	bs := make([]svgchart.Bucket, len(dist.Histogram))
	for i, h := range dist.Histogram {
		bs[i] = svgchart.Bucket{Label: web.USD(h.Lower) + "–" + web.USD(h.Upper), Count: h.Count, Tail: h.IsTail}
	}
	return svgchart.Histogram("Cost per run of "+dist.Workflow, bs, svgchart.Size{W: width, H: width / 5})
}

type tracesData struct{ Traces []wire.TraceRow }

func (d *Dashboard) tracesPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	q := pd.tagged(50)
	q.Workflow = pd.r.URL.Query().Get("workflow")
	var data tracesData
	err := all(pd.tagPicker, into(&data.Traces, func() ([]wire.TraceRow, error) { return pd.api.traces(q) }))
	return "traces", data, err
}

type traceData struct {
	Trace     wire.TraceDetail
	Waterfall string
}

// tracePage draws a run as a waterfall: spans in tree order (children
// under their parent, by step index), indented by depth. The API gives
// each call's latency but not its start, so bars are laid one after
// another in step order: a picture of where the time and money went, not
// of overlap (docs/dashboard.md).
func (d *Dashboard) tracePage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	id := mux.Vars(pd.r)["trace_id"]
	tr, err := pd.api.trace(id, pd.report(0))
	if err != nil {
		return "", nil, err
	}
	data := traceData{Trace: tr}
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
		spans[i] = svgchart.Span{Label: label, Title: web.USD(sp.Cost) + ", " + web.OptIntMillis(sp.LatencyMS),
			Depth: int(sp.Depth), Start: at, Length: lat, Failed: !sp.Success}
		at += lat
	}
	data.Waterfall = svgchart.Waterfall("Trace "+id, spans, 1000)
	return "trace", data, nil
}

// treeOrder puts children right after their parent, siblings by step
// index; spans whose parent is not in the trace are roots.
func treeOrder(spans []wire.SpanRow) []wire.SpanRow {
	ids := map[string]bool{}
	for _, sp := range spans {
		ids[sp.SpanID] = true
	}
	children := map[string][]wire.SpanRow{}
	for _, sp := range spans {
		parent := ""
		if sp.ParentSpanID != nil && ids[*sp.ParentSpanID] && *sp.ParentSpanID != sp.SpanID {
			parent = *sp.ParentSpanID
		}
		children[parent] = append(children[parent], sp)
	}
	out := make([]wire.SpanRow, 0, len(spans))
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
