package apiserver

import (
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
)

// The analytics records (package wire) made from the store's sums: money
// stays exact nano-USD, percentages are 0–100 with two decimals, averages
// and rates over nothing are null, sums over nothing 0.

// money is nano as the answers carry it.
func money(nano int64) wire.Money { return wire.Money(nano) }

func overviewOf(s analytics.Sums, w analytics.Span) wire.Overview {
	o := wire.Overview{TotalCost: money(s.CostNano), SubscriptionCost: money(s.SubscriptionNano),
		TotalCalls: s.Calls, TotalTokens: s.TotalTokens, AvgLatencyMS: analytics.Mean(s.LatencySum, s.LatencyCount),
		SuccessRate: analytics.Percent(s.SuccessCalls, s.Calls), PeriodStart: ts(w.Start), PeriodEnd: ts(w.End)}
	if avg, ok := analytics.DivNano(s.CostNano, s.Calls); ok {
		n := money(avg)
		o.AvgCostPerCall = &n
	}
	return o
}

func agentRows(rows []analytics.Keyed) []wire.AgentRow {
	out := make([]wire.AgentRow, len(rows))
	for i, r := range rows {
		out[i] = wire.AgentRow{AgentName: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			TotalCost: money(r.CostNano), AvgLatencyMS: analytics.Mean(r.LatencySum, r.LatencyCount),
			SuccessRate: analytics.Percent(r.SuccessCalls, r.Calls)}
	}
	return out
}

func modelRows(rows []analytics.Keyed, allCost int64) []wire.ModelRow {
	out := make([]wire.ModelRow, len(rows))
	for i, r := range rows {
		out[i] = wire.ModelRow{Model: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, TotalCost: money(r.CostNano),
			CostShare: analytics.Percent(r.CostNano, allCost), UnpricedCalls: r.UnpricedCalls}
	}
	return out
}

func dimensionRows(rows []analytics.Keyed) []wire.DimensionRow {
	out := make([]wire.DimensionRow, len(rows))
	for i, r := range rows {
		out[i] = wire.DimensionRow{Key: r.Key, TotalCalls: r.Calls, TotalTokens: r.TotalTokens,
			TotalCost: money(r.CostNano), AvgLatencyMS: analytics.Mean(r.LatencySum, r.LatencyCount),
			SuccessRate: analytics.Percent(r.SuccessCalls, r.Calls)}
	}
	return out
}

func seriesPoints(points []analytics.Point) []wire.SeriesPoint {
	out := make([]wire.SeriesPoint, len(points))
	for i, p := range points {
		out[i] = wire.SeriesPoint{Timestamp: ts(p.Bucket), Cost: money(p.CostNano), Calls: p.Calls, Tokens: p.TotalTokens}
	}
	return out
}

func cacheReport(s analytics.Sums) wire.CacheReport {
	return wire.CacheReport{TotalInputTokens: s.InputTokens, CachedTokens: s.CachedTokens,
		CacheWriteTokens: s.CacheWriteTokens, CacheHitRate: analytics.Percent(s.CachedTokens, s.InputTokens),
		EventsWithCache: s.EventsWithCache, ReadSavings: money(s.ReadSavingsNano),
		WritePremium: money(s.WritePremiumNano), NetSavings: money(s.ReadSavingsNano - s.WritePremiumNano)}
}
