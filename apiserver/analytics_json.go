package apiserver

import (
	"encoding/json"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/pricing"
)

// The spend reports' records (docs/analytics.md). Money is a JSON number
// written from exact nano-USD; percentages are 0–100 with two decimals;
// averages and rates over nothing are null, sums over nothing 0.

// Overview is /v1/analytics/overview.
type Overview struct {
	TotalCost        json.Number  `json:"total_cost"`
	SubscriptionCost json.Number  `json:"subscription_cost"`
	TotalCalls       int64        `json:"total_calls"`
	TotalTokens      int64        `json:"total_tokens"`
	AvgCostPerCall   *json.Number `json:"avg_cost_per_call"`
	AvgLatencyMS     *float64     `json:"avg_latency_ms"`
	SuccessRate      *float64     `json:"success_rate"`
	PeriodStart      string       `json:"period_start"`
	PeriodEnd        string       `json:"period_end"`
}

// AgentRow is one item of /v1/analytics/agents.
type AgentRow struct {
	AgentName    string      `json:"agent_name"`
	TotalCalls   int64       `json:"total_calls"`
	TotalTokens  int64       `json:"total_tokens"`
	TotalCost    json.Number `json:"total_cost"`
	AvgLatencyMS *float64    `json:"avg_latency_ms"`
	SuccessRate  *float64    `json:"success_rate"`
}

// ModelRow is one item of /v1/analytics/models.
type ModelRow struct {
	Model         string      `json:"model"`
	TotalCalls    int64       `json:"total_calls"`
	TotalTokens   int64       `json:"total_tokens"`
	InputTokens   int64       `json:"input_tokens"`
	OutputTokens  int64       `json:"output_tokens"`
	TotalCost     json.Number `json:"total_cost"`
	CostShare     *float64    `json:"cost_share"`
	UnpricedCalls int64       `json:"unpriced_calls"`
}

// SeriesPoint is one bucket of /v1/analytics/timeseries.
type SeriesPoint struct {
	Timestamp string      `json:"timestamp"`
	Cost      json.Number `json:"cost"`
	Calls     int64       `json:"calls"`
	Tokens    int64       `json:"tokens"`
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
	Key          string      `json:"key"`
	TotalCalls   int64       `json:"total_calls"`
	TotalTokens  int64       `json:"total_tokens"`
	TotalCost    json.Number `json:"total_cost"`
	AvgLatencyMS *float64    `json:"avg_latency_ms"`
	SuccessRate  *float64    `json:"success_rate"`
}

// CacheReport is /v1/analytics/cache.
type CacheReport struct {
	TotalInputTokens int64       `json:"total_input_tokens"`
	CachedTokens     int64       `json:"cached_tokens"`
	CacheWriteTokens int64       `json:"cache_write_tokens"`
	CacheHitRate     *float64    `json:"cache_hit_rate"`
	EventsWithCache  int64       `json:"events_with_cache"`
	ReadSavings      json.Number `json:"read_savings"`
	WritePremium     json.Number `json:"write_premium"`
	NetSavings       json.Number `json:"net_savings"`
}

func money(nano int64) json.Number { return json.Number(pricing.FormatUSD(nano)) }

func overviewOf(s analytics.Sums, w analytics.Span) Overview {
	o := Overview{TotalCost: money(s.CostNano), SubscriptionCost: money(s.SubscriptionNano),
		TotalCalls: s.Calls, TotalTokens: s.TotalTokens, AvgLatencyMS: analytics.Mean(s.LatencySum, s.LatencyCount),
		SuccessRate: analytics.Percent(s.SuccessCalls, s.Calls), PeriodStart: ts(w.Start), PeriodEnd: ts(w.End)}
	if avg, ok := analytics.DivNano(s.CostNano, s.Calls); ok {
		n := money(avg)
		o.AvgCostPerCall = &n
	}
	return o
}

func agentRows(rows []analytics.Keyed) []AgentRow {
	out := make([]AgentRow, len(rows))
	for i, r := range rows {
		out[i] = AgentRow{AgentName: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			TotalCost: money(r.CostNano), AvgLatencyMS: analytics.Mean(r.LatencySum, r.LatencyCount),
			SuccessRate: analytics.Percent(r.SuccessCalls, r.Calls)}
	}
	return out
}

func modelRows(rows []analytics.Keyed, allCost int64) []ModelRow {
	out := make([]ModelRow, len(rows))
	for i, r := range rows {
		out[i] = ModelRow{Model: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, TotalCost: money(r.CostNano),
			CostShare: analytics.Percent(r.CostNano, allCost), UnpricedCalls: r.UnpricedCalls}
	}
	return out
}

func dimensionRows(rows []analytics.Keyed) []DimensionRow {
	out := make([]DimensionRow, len(rows))
	for i, r := range rows {
		out[i] = DimensionRow{Key: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			TotalCost: money(r.CostNano), AvgLatencyMS: analytics.Mean(r.LatencySum, r.LatencyCount),
			SuccessRate: analytics.Percent(r.SuccessCalls, r.Calls)}
	}
	return out
}

func seriesPoints(points []analytics.Point) []SeriesPoint {
	out := make([]SeriesPoint, len(points))
	for i, p := range points {
		out[i] = SeriesPoint{Timestamp: ts(p.Bucket), Cost: money(p.CostNano), Calls: p.Calls, Tokens: p.TotalTokens}
	}
	return out
}

func cacheReport(s analytics.Sums) CacheReport {
	return CacheReport{TotalInputTokens: s.InputTokens, CachedTokens: s.CachedTokens,
		CacheWriteTokens: s.CacheWriteTokens, CacheHitRate: analytics.Percent(s.CachedTokens, s.InputTokens),
		EventsWithCache: s.EventsWithCache, ReadSavings: money(s.ReadSavingsNano),
		WritePremium: money(s.WritePremiumNano), NetSavings: money(s.ReadSavingsNano - s.WritePremiumNano)}
}
