package reports

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Params are what every analytics report resolves before reading: the
// project, the agent filter ("" for all), the range, its window and the
// array limit.
type Params struct {
	Project, Agent string
	Range          analytics.Range
	Window         analytics.Span
	Limit          int
	// Tag and TagValue narrow every read to the calls whose value of the
	// declared key Tag is TagValue ("": no tag filter; not with Agent).
	Tag, TagValue string
	// rawExpired and rollupExpired are the project's retention cutoffs
	// (Retain), nil when nothing expired.
	rawExpired, rollupExpired *time.Time
}

// Params builds the parameters of a report over rng ending now.
func (rs *Reports) Params(project, agent string, rng analytics.Range, limit int) Params {
	return Params{Project: project, Agent: agent, Range: rng, Window: analytics.Window(rng, rs.Now()), Limit: limit}
}

// Retain moves p's window to what the project's retention keeps
// (analytics.Retained): a start before its rollups' cutoff to that cutoff,
// a start before its raw calls' cutoff back to the whole hour, read from
// the hourly rollups instead of calls that are gone. The window's start
// is the answer's (the overview's period_start).
func (rs *Reports) Retain(ctx context.Context, p Params) (Params, error) {
	ret, err := rs.DB.Retention(ctx, p.Project)
	if err != nil {
		return p, err
	}
	now := rs.Now()
	p.rawExpired, p.rollupExpired = ret.RawExpiredBefore(now), ret.RollupExpiredBefore(now)
	p.Window = analytics.Retained(p.Window, p.rawExpired, p.rollupExpired, false)
	return p, nil
}

// window is the window dim's read covers: p's, or, when the read's rollups
// may lack hourly rows where the raw calls have expired (postgres.
// WindowQuery's HoursOutliveCalls) and p's start lies before the raw
// cutoff, p's from its whole UTC day.
func (p Params) window(dim string) analytics.Span {
	if (postgres.WindowQuery{Dim: dim, AgentName: p.Agent, Tag: p.Tag}).HoursOutliveCalls() {
		return p.Window
	}
	return analytics.Retained(p.Window, p.rawExpired, p.rollupExpired, true)
}

// ByKey is the read of dim's sums per key over the whole window: raw
// events for the 1h range, rollups otherwise (weekly ones for users, the
// dimension with many keys on every day, so a long window reads few rows).
func (p Params) ByKey(dim string, limit int) postgres.WindowQuery {
	grain := analytics.Day
	switch {
	case p.Range == analytics.Range1h:
		grain = analytics.Raw
	case dim == "user":
		grain = analytics.Week
	}
	return postgres.WindowQuery{ProjectID: p.Project, Dim: dim, AgentName: p.Agent,
		Segments: analytics.Decompose(p.window(dim), grain), Limit: limit, Tag: p.Tag,
		TagValue: p.TagValue}.ComplementEdges(p.Window.End, p.rawExpired)
}

// Series is the read of the range's time buckets: 5-minute buckets from
// raw events for 1h, hourly rollups for hour buckets, daily ones for days;
// a bucket never straddles a rollup it could not cut.
func (p Params) Series() postgres.WindowQuery {
	width := p.Range.BucketWidth()
	grain := analytics.Day
	switch width {
	case 5 * time.Minute:
		grain = analytics.Raw
	case time.Hour:
		grain = analytics.Hour
	}
	return postgres.WindowQuery{ProjectID: p.Project, Dim: "agent", AgentName: p.Agent,
		Segments: analytics.Decompose(p.Window, grain), BucketWidth: width, Tag: p.Tag,
		TagValue: p.TagValue}.ComplementEdges(p.Window.End, p.rawExpired)
}

// Filled is every bucket of the window, the ones points lack zero-filled.
func (p Params) Filled(points []analytics.Point) []analytics.Point {
	return analytics.ZeroFill(analytics.Buckets(p.Window, p.Range.BucketWidth()), points)
}

// ByKeys reads the sums per key of each of dims over p's window in one
// snapshot, each at most limit keys (0: all).
func (rs *Reports) ByKeys(ctx context.Context, p Params, limit int, dims ...string) ([]postgres.WindowResult, error) {
	qs := make([]postgres.WindowQuery, len(dims))
	for i, d := range dims {
		qs[i] = p.ByKey(d, limit)
	}
	return rs.DB.ReadWindows(ctx, qs...)
}

// Timeseries reads every bucket of p's window, empty ones zero-filled.
func (rs *Reports) Timeseries(ctx context.Context, p Params) ([]analytics.Point, error) {
	res, err := rs.DB.ReadWindows(ctx, p.Series())
	if err != nil {
		return nil, err
	}
	return p.Filled(res[0].Points), nil
}

// Full is the overview, agents, models and time series of one window.
type Full struct {
	// Total is the window's spend, every agent's (the agent's, when
	// narrowed to one).
	Total analytics.Sums
	// Agents are at most the limit, most expensive first.
	Agents []analytics.Keyed
	Models postgres.WindowResult
	// Points are zero-filled.
	Points []analytics.Point
}

// Full reads the four sections of p's window in one snapshot. Over all
// agents the agent and model keys are one pass over the window at day
// grain (as the agents and models reports read it), with the time series
// in the same statement when it has that grain too (postgres.ReadFull);
// narrowed to one agent or to a tag's value, they are three window reads.
func (rs *Reports) Full(ctx context.Context, p Params) (Full, error) {
	var agents []analytics.Keyed
	var models postgres.WindowResult
	var points []analytics.Point
	if p.Agent == "" && p.Tag == "" {
		series := p.Series()
		res, err := rs.DB.ReadFull(ctx, postgres.FullQuery{ProjectID: p.Project, Segments: series.Segments,
			KeySegments: p.ByKey("agent", 0).Segments, BucketWidth: series.BucketWidth, Limit: p.Limit})
		if err != nil {
			return Full{}, err
		}
		agents, models, points = res.Agents, res.Models, res.Points
	} else {
		res, err := rs.DB.ReadWindows(ctx, p.ByKey("agent", 0), p.ByKey("model", p.Limit), p.Series())
		if err != nil {
			return Full{}, err
		}
		agents, models, points = res[0].Keys, res[1], res[2].Points
	}
	return Full{Total: analytics.Total(agents), Agents: agents[:min(len(agents), p.Limit)], Models: models,
		Points: p.Filled(points)}, nil
}
