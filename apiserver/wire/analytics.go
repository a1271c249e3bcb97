package wire

import (
	"net/url"
	"strconv"
	"strings"
)

// Overview is /v1/analytics/overview.
type Overview struct {
	TotalCost        Money    `json:"total_cost"`
	SubscriptionCost Money    `json:"subscription_cost"`
	TotalCalls       int64    `json:"total_calls"`
	TotalTokens      int64    `json:"total_tokens"`
	AvgCostPerCall   *Money   `json:"avg_cost_per_call"`
	AvgLatencyMS     *float64 `json:"avg_latency_ms"`
	SuccessRate      *float64 `json:"success_rate"`
	PeriodStart      string   `json:"period_start"`
	PeriodEnd        string   `json:"period_end"`
	// Anomalies are the window's anomalous days of the project's metered
	// spend (of the agent's, when narrowed to one), oldest first: the
	// overview's signal (GET /v1/analytics/anomalies lists every scope).
	Anomalies []AnomalyRow `json:"anomalies"`
}

// AgentRow is one item of /v1/analytics/agents.
type AgentRow struct {
	AgentName    string   `json:"agent_name"`
	TotalCalls   int64    `json:"total_calls"`
	TotalTokens  int64    `json:"total_tokens"`
	TotalCost    Money    `json:"total_cost"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
	SuccessRate  *float64 `json:"success_rate"`
}

// ModelRow is one item of /v1/analytics/models.
type ModelRow struct {
	Model         string   `json:"model"`
	TotalCalls    int64    `json:"total_calls"`
	TotalTokens   int64    `json:"total_tokens"`
	InputTokens   int64    `json:"input_tokens"`
	OutputTokens  int64    `json:"output_tokens"`
	TotalCost     Money    `json:"total_cost"`
	CostShare     *float64 `json:"cost_share"`
	UnpricedCalls int64    `json:"unpriced_calls"`
}

// SeriesPoint is one bucket of /v1/analytics/timeseries.
type SeriesPoint struct {
	Timestamp string `json:"timestamp"`
	Cost      Money  `json:"cost"`
	Calls     int64  `json:"calls"`
	Tokens    int64  `json:"tokens"`
}

// FullAnalytics is /v1/analytics/full: four reports of one window.
type FullAnalytics struct {
	Overview   Overview      `json:"overview"`
	Agents     []AgentRow    `json:"agents"`
	Models     []ModelRow    `json:"models"`
	Timeseries []SeriesPoint `json:"timeseries"`
}

// DimensionRow is one item of /v1/analytics/by/{dimension}.
type DimensionRow struct {
	Key          string   `json:"key"`
	TotalCalls   int64    `json:"total_calls"`
	TotalTokens  int64    `json:"total_tokens"`
	TotalCost    Money    `json:"total_cost"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
	SuccessRate  *float64 `json:"success_rate"`
}

// CacheReport is /v1/analytics/cache.
type CacheReport struct {
	TotalInputTokens int64    `json:"total_input_tokens"`
	CachedTokens     int64    `json:"cached_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	CacheHitRate     *float64 `json:"cache_hit_rate"`
	EventsWithCache  int64    `json:"events_with_cache"`
	ReadSavings      Money    `json:"read_savings"`
	WritePremium     Money    `json:"write_premium"`
	NetSavings       Money    `json:"net_savings"`
}

// ReportQuery is the query of the report reads (analytics, guardrail
// compliance, optimisations): the project and range every one takes, and
// the parameters some take.
type ReportQuery struct {
	ProjectID string
	Range     string
	// Limit bounds a list; 0 leaves the route's default.
	Limit int
	// Workflow narrows the trace list to one workflow; "" is all.
	Workflow string
	// Tag narrows a spend or run report to one value of a declared tag key,
	// written key=value (sent as tag.key=value); "" is all calls.
	Tag string
}

// Values is the query as the routes read it.
func (q ReportQuery) Values() url.Values {
	v := url.Values{"project_id": {q.ProjectID}, "range": {q.Range}}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Workflow != "" {
		v.Set("workflow", q.Workflow)
	}
	if q.Tag != "" {
		key, value, _ := strings.Cut(q.Tag, "=")
		v.Set("tag."+key, value)
	}
	return v
}
