package wire

// WorkflowRow is one item of /v1/analytics/workflows.
type WorkflowRow struct {
	Workflow       *string  `json:"workflow"`
	Runs           int64    `json:"runs"`
	TotalCost      Money    `json:"total_cost"`
	AvgCostPerRun  *Money   `json:"avg_cost_per_run"`
	MaxCostPerRun  Money    `json:"max_cost_per_run"`
	TotalCalls     int64    `json:"total_calls"`
	AvgCallsPerRun *float64 `json:"avg_calls_per_run"`
	AvgStepsPerRun *float64 `json:"avg_steps_per_run"`
	MaxDepth       int64    `json:"max_depth"`
	SuccessRate    *float64 `json:"success_rate"`
}

// StepRow is one item of /v1/analytics/workflows/steps.
type StepRow struct {
	Workflow     *string  `json:"workflow"`
	StepName     string   `json:"step_name"`
	Calls        int64    `json:"calls"`
	Runs         int64    `json:"runs"`
	CallsPerRun  *float64 `json:"calls_per_run"`
	CostPerRun   *Money   `json:"cost_per_run"`
	TotalCost    Money    `json:"total_cost"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
	SuccessRate  *float64 `json:"success_rate"`
}

// ToolRow is one item of /v1/analytics/workflows/tools.
type ToolRow struct {
	ToolName     string   `json:"tool_name"`
	Calls        int64    `json:"calls"`
	Runs         int64    `json:"runs"`
	TotalCost    Money    `json:"total_cost"`
	TotalTokens  int64    `json:"total_tokens"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
}

// RepeatedWorkRow is one item of /v1/analytics/workflows/repeated-work.
type RepeatedWorkRow struct {
	TraceID     string  `json:"trace_id"`
	Workflow    *string `json:"workflow"`
	StepName    *string `json:"step_name"`
	ToolName    *string `json:"tool_name"`
	Model       string  `json:"model"`
	Occurrences int64   `json:"occurrences"`
	Spend       Money   `json:"spend"`
	WastedCost  Money   `json:"wasted_cost"`
	FirstSeen   string  `json:"first_seen"`
}

// OutcomeRow is one item of /v1/analytics/workflows/outcomes: the
// workflow, then the fields of an outcomes summary (the agent detail's).
type OutcomeRow struct {
	Workflow *string `json:"workflow"`
	OutcomesSummary
}

// HistogramBucket is one bucket of a distribution.
type HistogramBucket struct {
	Lower  Money `json:"lower"`
	Upper  Money `json:"upper"`
	Count  int64 `json:"count"`
	IsTail bool  `json:"is_tail"`
}

// Distribution is /v1/analytics/workflows/distribution.
type Distribution struct {
	Workflow         string            `json:"workflow"`
	Runs             int64             `json:"runs"`
	Truncated        bool              `json:"truncated"`
	P50              Money             `json:"p50"`
	P95              Money             `json:"p95"`
	P99              Money             `json:"p99"`
	Max              Money             `json:"max"`
	TailRuns         int64             `json:"tail_runs"`
	TailThreshold    Money             `json:"tail_threshold"`
	TailSharePercent *float64          `json:"tail_share_percent"`
	TailRatio        *float64          `json:"tail_ratio"`
	Histogram        []HistogramBucket `json:"histogram"`
}

// TraceRow is one item of /v1/analytics/traces.
type TraceRow struct {
	TraceID     string  `json:"trace_id"`
	Workflow    *string `json:"workflow"`
	Calls       int64   `json:"calls"`
	TotalCost   Money   `json:"total_cost"`
	MaxDepth    int64   `json:"max_depth"`
	FailedCalls int64   `json:"failed_calls"`
	StartedAt   string  `json:"started_at"`
	DurationMS  int64   `json:"duration_ms"`
}

// TraceOutcome is a run's declared outcome.
type TraceOutcome struct {
	Success    bool    `json:"success"`
	Label      *string `json:"label"`
	RecordedAt string  `json:"recorded_at"`
}

// SpanRow is one call of a trace detail.
type SpanRow struct {
	SpanID       string  `json:"span_id"`
	ParentSpanID *string `json:"parent_span_id"`
	StepName     *string `json:"step_name"`
	ToolName     *string `json:"tool_name"`
	StepIndex    int64   `json:"step_index"`
	Depth        int64   `json:"depth"`
	Model        string  `json:"model"`
	Cost         Money   `json:"cost"`
	LatencyMS    *int64  `json:"latency_ms"`
	Success      bool    `json:"success"`
}

// TraceGroup is the sums of one step or tool of a trace detail.
type TraceGroup struct {
	Name         string   `json:"name"`
	Calls        int64    `json:"calls"`
	TotalCost    Money    `json:"total_cost"`
	TotalTokens  int64    `json:"total_tokens"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
	SuccessRate  *float64 `json:"success_rate"`
}

// TraceDetail is /v1/analytics/traces/{trace_id}.
type TraceDetail struct {
	TraceID    string        `json:"trace_id"`
	Workflow   *string       `json:"workflow"`
	TotalCost  Money         `json:"total_cost"`
	TotalCalls int64         `json:"total_calls"`
	MaxDepth   int64         `json:"max_depth"`
	DurationMS int64         `json:"duration_ms"`
	Outcome    *TraceOutcome `json:"outcome"`
	// Spans are the run's calls; empty for a run that started before
	// ExpiredBefore, whose totals are the run tables'.
	Spans []SpanRow `json:"spans"`
	// Steps and Tools sum the run's calls per step and per tool name.
	Steps []TraceGroup `json:"steps"`
	Tools []TraceGroup `json:"tools"`
	// ExpiredBefore says that the project's raw calls before this instant
	// have expired (its retention): a run that started before it has no
	// spans left, only its totals. Null: none has.
	ExpiredBefore *string `json:"expired_before"`
}
