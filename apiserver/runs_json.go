package apiserver

import (
	"encoding/json"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/runs"
)

// The run reports' records (docs/analytics.md "Runs").

// WorkflowRow is one item of /v1/analytics/workflows.
type WorkflowRow struct {
	Workflow       *string      `json:"workflow"`
	Runs           int64        `json:"runs"`
	TotalCost      json.Number  `json:"total_cost"`
	AvgCostPerRun  *json.Number `json:"avg_cost_per_run"`
	MaxCostPerRun  json.Number  `json:"max_cost_per_run"`
	TotalCalls     int64        `json:"total_calls"`
	AvgCallsPerRun *float64     `json:"avg_calls_per_run"`
	AvgStepsPerRun *float64     `json:"avg_steps_per_run"`
	MaxDepth       int64        `json:"max_depth"`
	SuccessRate    *float64     `json:"success_rate"`
}

// StepRow is one item of /v1/analytics/workflows/steps.
type StepRow struct {
	Workflow     *string      `json:"workflow"`
	StepName     string       `json:"step_name"`
	Calls        int64        `json:"calls"`
	Runs         int64        `json:"runs"`
	CallsPerRun  *float64     `json:"calls_per_run"`
	CostPerRun   *json.Number `json:"cost_per_run"`
	TotalCost    json.Number  `json:"total_cost"`
	AvgLatencyMS *float64     `json:"avg_latency_ms"`
	SuccessRate  *float64     `json:"success_rate"`
}

// ToolRow is one item of /v1/analytics/workflows/tools.
type ToolRow struct {
	ToolName     string      `json:"tool_name"`
	Calls        int64       `json:"calls"`
	Runs         int64       `json:"runs"`
	TotalCost    json.Number `json:"total_cost"`
	TotalTokens  int64       `json:"total_tokens"`
	AvgLatencyMS *float64    `json:"avg_latency_ms"`
}

// RepeatedWorkRow is one item of /v1/analytics/workflows/repeated-work.
type RepeatedWorkRow struct {
	TraceID     string      `json:"trace_id"`
	Workflow    *string     `json:"workflow"`
	StepName    *string     `json:"step_name"`
	ToolName    *string     `json:"tool_name"`
	Model       string      `json:"model"`
	Occurrences int64       `json:"occurrences"`
	Spend       json.Number `json:"spend"`
	WastedCost  json.Number `json:"wasted_cost"`
	FirstSeen   string      `json:"first_seen"`
}

// OutcomeRow is one item of /v1/analytics/workflows/outcomes: the
// workflow, then the fields of an outcomes summary (the agent detail's).
type OutcomeRow struct {
	Workflow *string `json:"workflow"`
	OutcomesSummary
}

// HistogramBucket is one bucket of a distribution.
type HistogramBucket struct {
	Lower  json.Number `json:"lower"`
	Upper  json.Number `json:"upper"`
	Count  int64       `json:"count"`
	IsTail bool        `json:"is_tail"`
}

// Distribution is /v1/analytics/workflows/distribution.
type Distribution struct {
	Workflow         string            `json:"workflow"`
	Runs             int64             `json:"runs"`
	Truncated        bool              `json:"truncated"`
	P50              json.Number       `json:"p50"`
	P95              json.Number       `json:"p95"`
	P99              json.Number       `json:"p99"`
	Max              json.Number       `json:"max"`
	TailRuns         int64             `json:"tail_runs"`
	TailThreshold    json.Number       `json:"tail_threshold"`
	TailSharePercent *float64          `json:"tail_share_percent"`
	TailRatio        *float64          `json:"tail_ratio"`
	Histogram        []HistogramBucket `json:"histogram"`
}

// TraceRow is one item of /v1/analytics/traces.
type TraceRow struct {
	TraceID     string      `json:"trace_id"`
	Workflow    *string     `json:"workflow"`
	Calls       int64       `json:"calls"`
	TotalCost   json.Number `json:"total_cost"`
	MaxDepth    int64       `json:"max_depth"`
	FailedCalls int64       `json:"failed_calls"`
	StartedAt   string      `json:"started_at"`
	DurationMS  int64       `json:"duration_ms"`
}

// TraceOutcome is a run's declared outcome.
type TraceOutcome struct {
	Success    bool    `json:"success"`
	Label      *string `json:"label"`
	RecordedAt string  `json:"recorded_at"`
}

// SpanRow is one call of a trace detail.
type SpanRow struct {
	SpanID       string      `json:"span_id"`
	ParentSpanID *string     `json:"parent_span_id"`
	StepName     *string     `json:"step_name"`
	ToolName     *string     `json:"tool_name"`
	StepIndex    int64       `json:"step_index"`
	Depth        int64       `json:"depth"`
	Model        string      `json:"model"`
	Cost         json.Number `json:"cost"`
	LatencyMS    *int64      `json:"latency_ms"`
	Success      bool        `json:"success"`
}

// TraceDetail is /v1/analytics/traces/{trace_id}.
type TraceDetail struct {
	TraceID    string        `json:"trace_id"`
	Workflow   *string       `json:"workflow"`
	TotalCost  json.Number   `json:"total_cost"`
	TotalCalls int64         `json:"total_calls"`
	MaxDepth   int64         `json:"max_depth"`
	DurationMS int64         `json:"duration_ms"`
	Outcome    *TraceOutcome `json:"outcome"`
	Spans      []SpanRow     `json:"spans"`
}

func perRun(nano, runs int64) *json.Number {
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

func workflowRows(rows []postgres.WorkflowSums) []WorkflowRow {
	out := make([]WorkflowRow, len(rows))
	for i, w := range rows {
		out[i] = WorkflowRow{Workflow: w.Workflow, Runs: w.Runs, TotalCost: money(w.CostNano),
			AvgCostPerRun: perRun(w.CostNano, w.Runs), MaxCostPerRun: money(w.MaxCostNano), TotalCalls: w.Calls,
			AvgCallsPerRun: analytics.Mean(w.Calls, w.Runs), AvgStepsPerRun: analytics.Mean(w.Steps, w.Runs),
			MaxDepth: w.MaxDepth, SuccessRate: analytics.Percent(w.SuccessCalls, w.Calls)}
	}
	return out
}

func stepRows(rows []postgres.GroupSums) []StepRow {
	out := make([]StepRow, len(rows))
	for i, g := range rows {
		out[i] = StepRow{Workflow: g.Workflow, StepName: g.Name, Calls: g.Calls, Runs: g.Runs,
			CallsPerRun: analytics.Mean(g.Calls, g.Runs), CostPerRun: perRun(g.CostNano, g.Runs),
			TotalCost: money(g.CostNano), AvgLatencyMS: analytics.Mean(g.LatencySum, g.LatencyCount),
			SuccessRate: analytics.Percent(g.Successes, g.Calls)}
	}
	return out
}

func toolRows(rows []postgres.GroupSums) []ToolRow {
	out := make([]ToolRow, len(rows))
	for i, g := range rows {
		out[i] = ToolRow{ToolName: g.Name, Calls: g.Calls, Runs: g.Runs, TotalCost: money(g.CostNano),
			TotalTokens: g.Tokens, AvgLatencyMS: analytics.Mean(g.LatencySum, g.LatencyCount)}
	}
	return out
}

func repeatedRows(rows []postgres.RepeatRow) []RepeatedWorkRow {
	out := make([]RepeatedWorkRow, len(rows))
	for i, x := range rows {
		out[i] = RepeatedWorkRow{TraceID: x.TraceID, Workflow: x.Workflow, StepName: x.StepName,
			ToolName: x.ToolName, Model: x.Model, Occurrences: x.Occurrences, Spend: money(x.SpendNano),
			WastedCost: money(x.WastedNano), FirstSeen: ts(x.FirstSeen)}
	}
	return out
}

func outcomeRows(rows []postgres.WorkflowSums) []OutcomeRow {
	out := make([]OutcomeRow, len(rows))
	for i, o := range rows {
		out[i] = OutcomeRow{Workflow: o.Workflow, OutcomesSummary: OutcomesSummary{Runs: o.Runs,
			Succeeded: o.Succeeded, Failed: o.Failed, Unknown: o.Runs - o.Succeeded - o.Failed,
			CostOnSuccess: money(o.SuccessCostNano), CostOnFailure: money(o.FailureCostNano),
			CostPerSuccess: perRun(o.CostNano, o.Succeeded),
			SuccessRate:    analytics.Percent(o.Succeeded, o.Succeeded+o.Failed)}}
	}
	return out
}

func distribution(workflow string, d runs.Distribution, truncated bool) Distribution {
	out := Distribution{Workflow: workflow, Runs: d.Runs, Truncated: truncated, P50: money(d.P50),
		P95: money(d.P95), P99: money(d.P99), Max: money(d.Max), TailRuns: d.TailRuns,
		TailThreshold: money(d.P95), TailSharePercent: analytics.Percent(d.TailCostNano, d.TotalCostNano),
		TailRatio: analytics.Round2(d.TailRatio()), Histogram: make([]HistogramBucket, len(d.Histogram))}
	for i, b := range d.Histogram {
		out.Histogram[i] = HistogramBucket{Lower: money(b.Lower), Upper: money(b.Upper), Count: b.Count,
			IsTail: b.IsTail}
	}
	return out
}

func traceRows(rows []postgres.RunRow) []TraceRow {
	out := make([]TraceRow, len(rows))
	for i, r := range rows {
		out[i] = TraceRow{TraceID: r.TraceID, Workflow: r.Workflow, Calls: r.Calls, TotalCost: money(r.CostNano),
			MaxDepth: r.MaxDepth, FailedCalls: r.FailedCalls, StartedAt: ts(r.FirstTS),
			DurationMS: r.LastEnd.Sub(r.FirstTS).Milliseconds()}
	}
	return out
}

func traceDetail(traceID string, tr postgres.Trace) TraceDetail {
	d := TraceDetail{TraceID: traceID, TotalCost: money(0), Spans: []SpanRow{}}
	if o := tr.Outcome; o != nil {
		d.Outcome = &TraceOutcome{Success: o.Success, Label: o.Label, RecordedAt: ts(o.RecordedAt)}
	}
	if tr.Run == nil {
		return d
	}
	s := tr.Run.Summary
	d.Workflow, d.TotalCost, d.TotalCalls, d.MaxDepth, d.DurationMS = optStr(s.Workflow), money(s.CostNano),
		s.Calls, s.MaxDepth, s.DurationMS()
	for _, sp := range tr.Run.Spans {
		d.Spans = append(d.Spans, SpanRow{SpanID: sp.Span, ParentSpanID: optStr(sp.ParentSpanID),
			StepName: optStr(sp.StepName), ToolName: optStr(sp.ToolName), StepIndex: sp.StepIndex, Depth: sp.Depth,
			Model: sp.Model, Cost: money(sp.CostNano), LatencyMS: sp.LatencyMS, Success: sp.Success})
	}
	return d
}
