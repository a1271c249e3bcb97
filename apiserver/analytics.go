package apiserver

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// report is what every analytics request resolves before reading: the
// project (API key, or session with project_id and VIEW_ANALYTICS), the
// window of range, the agent filter and the array limit.
type report struct {
	project, agent string
	rng            analytics.Range
	window         analytics.Span
	limit          int
}

// parseReport reads range (against allowed) and limit; the route's guard
// has already resolved the project (401/403/404 before any 422).
func (s *Server) parseReport(r *http.Request, allowed []analytics.Range) (report, error) {
	q := r.URL.Query()
	project := callerOf(r).ProjectID
	rng, err := analytics.ParseRange(q.Get("range"), allowed)
	if err != nil {
		return report{}, err
	}
	limit, err := analytics.ParseLimit(q.Get("limit"))
	if err != nil {
		return report{}, err
	}
	return report{project: project, agent: q.Get("agent_name"), rng: rng,
		window: analytics.Window(rng, s.Now()), limit: limit}, nil
}

// byKey reads dim's sums per key over the whole window: raw events for
// the 1h range, rollups otherwise (weekly ones for users, the dimension
// with many keys on every day).
func (rp report) byKey(dim string, limit int) postgres.WindowQuery {
	grain := analytics.Day
	switch {
	case rp.rng == analytics.Range1h:
		grain = analytics.Raw
	case dim == "user":
		grain = analytics.Week
	}
	return postgres.WindowQuery{ProjectID: rp.project, Dim: dim, AgentName: rp.agent,
		Segments: analytics.Decompose(rp.window, grain), Limit: limit}
}

// series reads the time buckets of the range: 5-minute buckets from raw
// events for 1h, hourly rollups for hour buckets, daily ones for days.
func (rp report) series() postgres.WindowQuery {
	width := rp.rng.BucketWidth()
	grain := analytics.Day
	switch width {
	case 5 * time.Minute:
		grain = analytics.Raw
	case time.Hour:
		grain = analytics.Hour
	}
	return postgres.WindowQuery{ProjectID: rp.project, Dim: "agent", AgentName: rp.agent,
		Segments: analytics.Decompose(rp.window, grain), BucketWidth: width}
}

func (rp report) filled(points []analytics.Point) []wire.SeriesPoint {
	return seriesPoints(analytics.ZeroFill(analytics.Buckets(rp.window, rp.rng.BucketWidth()), points))
}

// analyticsOverview is GET /v1/analytics/overview (24h, 7d, 30d, 90d).
func (s *Server) analyticsOverview(r *http.Request) (wire.Overview, error) {
	rp, err := s.parseReport(r, analytics.OverviewRanges)
	if err != nil {
		return wire.Overview{}, err
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.byKey("agent", 0))
	if err != nil {
		return wire.Overview{}, err
	}
	o := overviewOf(analytics.Total(res[0].Keys), rp.window)
	o.Anomalies, err = s.overviewAnomalies(r.Context(), rp.project, rp.agent, rp.window)
	return o, err
}

// analyticsAgents is GET /v1/analytics/agents.
func (s *Server) analyticsAgents(r *http.Request) ([]wire.AgentRow, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.byKey("agent", rp.limit))
	if err != nil {
		return nil, err
	}
	return agentRows(res[0].Keys), nil
}

// analyticsModels is GET /v1/analytics/models; cost_share is of the
// window's spend (of the agent's, when narrowed to one).
func (s *Server) analyticsModels(r *http.Request) ([]wire.ModelRow, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.byKey("model", rp.limit))
	if err != nil {
		return nil, err
	}
	return modelRows(res[0].Keys, res[0].AllCostNano), nil
}

// analyticsTimeseries is GET /v1/analytics/timeseries: every bucket of the
// window, empty ones zero-filled.
func (s *Server) analyticsTimeseries(r *http.Request) ([]wire.SeriesPoint, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.series())
	if err != nil {
		return nil, err
	}
	return rp.filled(res[0].Points), nil
}

// analyticsFull is GET /v1/analytics/full: overview, agents, models and
// time series of one window, read in one snapshot. Over all agents the
// agent and model keys are one pass over the window at day grain (as the
// agents and models reports read it), with the time series in the same
// statement when it has that grain too (postgres.ReadFull); narrowed to
// one agent, whose model rows are daily only, they are three window reads.
func (s *Server) analyticsFull(r *http.Request) (wire.FullAnalytics, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return wire.FullAnalytics{}, err
	}
	var agents []analytics.Keyed
	var models postgres.WindowResult
	var points []analytics.Point
	if rp.agent == "" {
		series := rp.series()
		res, err := s.DB.ReadFull(r.Context(), postgres.FullQuery{ProjectID: rp.project, Segments: series.Segments,
			KeySegments: rp.byKey("agent", 0).Segments, BucketWidth: series.BucketWidth, Limit: rp.limit})
		if err != nil {
			return wire.FullAnalytics{}, err
		}
		agents, models, points = res.Agents, res.Models, res.Points
	} else {
		res, err := s.DB.ReadWindows(r.Context(), rp.byKey("agent", 0), rp.byKey("model", rp.limit), rp.series())
		if err != nil {
			return wire.FullAnalytics{}, err
		}
		agents, models, points = res[0].Keys, res[1], res[2].Points
	}
	o := overviewOf(analytics.Total(agents), rp.window)
	if o.Anomalies, err = s.overviewAnomalies(r.Context(), rp.project, rp.agent, rp.window); err != nil {
		return wire.FullAnalytics{}, err
	}
	return wire.FullAnalytics{Overview: o,
		Agents: agentRows(agents[:min(len(agents), rp.limit)]), Models: modelRows(models.Keys, models.AllCostNano),
		Timeseries: rp.filled(points)}, nil
}

// analyticsBy is GET /v1/analytics/by/{dimension}; an unknown dimension is
// 404, calls without a value for it are left out.
func (s *Server) analyticsBy(r *http.Request) ([]wire.DimensionRow, error) {
	dim := mux.Vars(r)["dimension"]
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	if !analytics.ValidDimension(dim) {
		return nil, apierr.Newf(apierr.NotFound, "dimension: no analytics dimension %q", dim).
			WithHint("use one of user, session, workflow, tool, model, agent, billing")
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.byKey(dim, rp.limit))
	if err != nil {
		return nil, err
	}
	return dimensionRows(res[0].Keys), nil
}

// analyticsCache is GET /v1/analytics/cache: savings priced with each
// call's own rates when it was stored.
func (s *Server) analyticsCache(r *http.Request) (wire.CacheReport, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return wire.CacheReport{}, err
	}
	res, err := s.DB.ReadWindows(r.Context(), rp.byKey("agent", 0))
	if err != nil {
		return wire.CacheReport{}, err
	}
	return cacheReport(analytics.Total(res[0].Keys)), nil
}
