package apiserver

import (
	"slices"
	"strings"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/reports"
	"github.com/llmcost/llmcost/internal/runs"
)

// The run records (package wire) made from the store's run sums.

func perRun(nano, runs int64) *wire.Money {
	avg, ok := analytics.DivNano(nano, runs)
	if !ok {
		return nil
	}
	n := money(avg)
	return &n
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func workflowRows(rows []postgres.WorkflowSums) []wire.WorkflowRow {
	out := make([]wire.WorkflowRow, len(rows))
	for i, w := range rows {
		out[i] = wire.WorkflowRow{Workflow: w.Workflow, Runs: w.Runs, TotalCost: money(w.CostNano),
			AvgCostPerRun: perRun(w.CostNano, w.Runs), MaxCostPerRun: money(w.MaxCostNano), TotalCalls: w.Calls,
			AvgCallsPerRun: analytics.Mean(w.Calls, w.Runs), AvgStepsPerRun: analytics.Mean(w.Steps, w.Runs),
			MaxDepth: w.MaxDepth, SuccessRate: analytics.Percent(w.SuccessCalls, w.Calls)}
	}
	return out
}

func stepRows(rows []postgres.GroupSums) []wire.StepRow {
	out := make([]wire.StepRow, len(rows))
	for i, g := range rows {
		out[i] = wire.StepRow{Workflow: g.Workflow, StepName: g.Name, Calls: g.Calls, Runs: g.Runs,
			CallsPerRun: analytics.Mean(g.Calls, g.Runs), CostPerRun: perRun(g.CostNano, g.Runs),
			TotalCost: money(g.CostNano), AvgLatencyMS: analytics.Mean(g.LatencySum, g.LatencyCount),
			SuccessRate: analytics.Percent(g.Successes, g.Calls)}
	}
	return out
}

func toolRows(rows []postgres.GroupSums) []wire.ToolRow {
	out := make([]wire.ToolRow, len(rows))
	for i, g := range rows {
		out[i] = wire.ToolRow{ToolName: g.Name, Calls: g.Calls, Runs: g.Runs, TotalCost: money(g.CostNano),
			TotalTokens: g.Tokens, AvgLatencyMS: analytics.Mean(g.LatencySum, g.LatencyCount)}
	}
	return out
}

func repeatedRows(rows []postgres.RepeatRow) []wire.RepeatedWorkRow {
	out := make([]wire.RepeatedWorkRow, len(rows))
	for i, x := range rows {
		out[i] = wire.RepeatedWorkRow{TraceID: x.TraceID, Workflow: x.Workflow, StepName: x.StepName,
			ToolName: x.ToolName, Model: x.Model, Occurrences: x.Occurrences, Spend: money(x.SpendNano),
			WastedCost: money(x.WastedNano), FirstSeen: ts(x.FirstSeen)}
	}
	return out
}

func outcomeRows(rows []postgres.WorkflowSums) []wire.OutcomeRow {
	out := make([]wire.OutcomeRow, len(rows))
	for i, o := range rows {
		out[i] = wire.OutcomeRow{Workflow: o.Workflow, OutcomesSummary: wire.OutcomesSummary{Runs: o.Runs,
			Succeeded: o.Succeeded, Failed: o.Failed, Unknown: o.Runs - o.Succeeded - o.Failed,
			CostOnSuccess: money(o.SuccessCostNano), CostOnFailure: money(o.FailureCostNano),
			CostPerSuccess: perRun(o.CostNano, o.Succeeded),
			SuccessRate:    analytics.Percent(o.Succeeded, o.Succeeded+o.Failed)}}
	}
	return out
}

// distribution is the record of a run-cost distribution.
func distribution(d reports.Distribution) wire.Distribution {
	out := wire.Distribution{Workflow: d.Workflow, Runs: d.Runs, Truncated: d.Truncated, P50: money(d.P50),
		P95: money(d.P95), P99: money(d.P99), Max: money(d.Max), TailRuns: d.TailRuns,
		TailThreshold: money(d.P95), TailSharePercent: analytics.Percent(d.TailCostNano, d.TotalCostNano),
		TailRatio: analytics.Round2(d.TailRatio()), Histogram: make([]wire.HistogramBucket, len(d.Histogram))}
	for i, b := range d.Histogram {
		out.Histogram[i] = wire.HistogramBucket{Lower: money(b.Lower), Upper: money(b.Upper), Count: b.Count,
			IsTail: b.IsTail}
	}
	return out
}

func traceRows(rows []postgres.RunRow) []wire.TraceRow {
	out := make([]wire.TraceRow, len(rows))
	for i, r := range rows {
		out[i] = wire.TraceRow{TraceID: r.TraceID, Workflow: r.Workflow, Calls: r.Calls, TotalCost: money(r.CostNano),
			MaxDepth: r.MaxDepth, FailedCalls: r.FailedCalls, StartedAt: ts(r.FirstTS),
			DurationMS: r.LastEnd.Sub(r.FirstTS).Milliseconds()}
	}
	return out
}

func traceDetail(traceID string, tr postgres.Trace) wire.TraceDetail {
	d := wire.TraceDetail{TraceID: traceID, TotalCost: money(0), Spans: []wire.SpanRow{}, Steps: []wire.TraceGroup{},
		Tools: []wire.TraceGroup{}}
	if o := tr.Outcome; o != nil {
		d.Outcome = &wire.TraceOutcome{Success: o.Success, Label: o.Label, RecordedAt: ts(o.RecordedAt)}
	}
	if tr.Run == nil {
		return d
	}
	s := tr.Run.Summary
	d.Workflow, d.TotalCost, d.TotalCalls, d.MaxDepth, d.DurationMS = optStr(s.Workflow), money(s.CostNano),
		s.Calls, s.MaxDepth, s.DurationMS()
	d.Steps, d.Tools = traceGroups(tr.Run.Steps), traceGroups(tr.Run.Tools)
	for _, sp := range tr.Run.Spans {
		d.Spans = append(d.Spans, wire.SpanRow{SpanID: sp.Span, ParentSpanID: optStr(sp.ParentSpanID),
			StepName: optStr(sp.StepName), ToolName: optStr(sp.ToolName), StepIndex: sp.StepIndex, Depth: sp.Depth,
			Model: sp.Model, Cost: money(sp.CostNano), LatencyMS: sp.LatencyMS, Success: sp.Success})
	}
	return d
}

// traceGroups are a run's step or tool sums, as its detail lists them: by
// name (byte order), as the run tables give them once the calls expired.
func traceGroups(gs []runs.Group) []wire.TraceGroup {
	gs = slices.SortedFunc(slices.Values(gs), func(a, b runs.Group) int { return strings.Compare(a.Name, b.Name) })
	out := make([]wire.TraceGroup, len(gs))
	for i, g := range gs {
		out[i] = wire.TraceGroup{Name: g.Name, Calls: g.Calls, TotalCost: money(g.CostNano), TotalTokens: g.Tokens,
			AvgLatencyMS: analytics.Mean(g.LatencySum, g.LatencyCount), SuccessRate: analytics.Percent(g.SuccessCalls, g.Calls)}
	}
	return out
}
