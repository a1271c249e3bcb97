package apiserver

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/reports"
)

// parseReport reads range (against allowed), agent_name, limit and a tag
// filter (tag.<key>=<value>, parseTagFilter) into
// the parameters of an analytics report; the route's guard has already
// resolved the project (401/403/404 before any 422).
func (s *Server) parseReport(r *http.Request, allowed []analytics.Range) (reports.Params, error) {
	q := r.URL.Query()
	project := callerOf(r).ProjectID
	rng, err := analytics.ParseRange(q.Get("range"), allowed)
	if err != nil {
		return reports.Params{}, err
	}
	limit, err := analytics.ParseLimit(q.Get("limit"))
	if err != nil {
		return reports.Params{}, err
	}
	tag, err := s.parseTagFilter(r.Context(), project, q)
	if err != nil {
		return reports.Params{}, err
	}
	if err := tag.withoutAgent(q); err != nil {
		return reports.Params{}, err
	}
	p := s.reports().Params(project, q.Get("agent_name"), rng, limit)
	p.Tag, p.TagValue = tag.key, tag.value
	return s.reports().Retain(r.Context(), p)
}

// analyticsOverview is GET /v1/analytics/overview (24h, 7d, 30d, 90d).
func (s *Server) analyticsOverview(r *http.Request) (wire.Overview, error) {
	rp, err := s.parseReport(r, analytics.OverviewRanges)
	if err != nil {
		return wire.Overview{}, err
	}
	res, err := s.reports().ByKeys(r.Context(), rp, 0, "agent")
	if err != nil {
		return wire.Overview{}, err
	}
	o := overviewOf(analytics.Total(res[0].Keys), rp.Window)
	o.Anomalies, err = s.reportAnomalies(r.Context(), rp)
	return o, err
}

// reportAnomalies are the anomalous days of the report's scope: the
// project's or the agent's; none for a tag's value, which the anomaly
// rule does not judge.
func (s *Server) reportAnomalies(ctx context.Context, rp reports.Params) ([]wire.AnomalyRow, error) {
	if rp.Tag != "" {
		return []wire.AnomalyRow{}, nil
	}
	return s.overviewAnomalies(ctx, rp.Project, rp.Agent, rp.Window)
}

// analyticsAgents is GET /v1/analytics/agents.
func (s *Server) analyticsAgents(r *http.Request) ([]wire.AgentRow, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	res, err := s.reports().ByKeys(r.Context(), rp, rp.Limit, "agent")
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
	res, err := s.reports().ByKeys(r.Context(), rp, rp.Limit, "model")
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
	points, err := s.reports().Timeseries(r.Context(), rp)
	if err != nil {
		return nil, err
	}
	return seriesPoints(points), nil
}

// analyticsFull is GET /v1/analytics/full: overview, agents, models and
// time series of one window, read in one snapshot (reports.Full).
func (s *Server) analyticsFull(r *http.Request) (wire.FullAnalytics, error) {
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return wire.FullAnalytics{}, err
	}
	f, err := s.reports().Full(r.Context(), rp)
	if err != nil {
		return wire.FullAnalytics{}, err
	}
	o := overviewOf(f.Total, rp.Window)
	if o.Anomalies, err = s.reportAnomalies(r.Context(), rp); err != nil {
		return wire.FullAnalytics{}, err
	}
	return wire.FullAnalytics{Overview: o, Agents: agentRows(f.Agents),
		Models: modelRows(f.Models.Keys, f.Models.AllCostNano), Timeseries: seriesPoints(f.Points)}, nil
}

// analyticsBy is GET /v1/analytics/by/{dimension}; an unknown dimension is
// 404, calls without a value for it are left out.
func (s *Server) analyticsBy(r *http.Request) ([]wire.DimensionRow, error) {
	dim := mux.Vars(r)["dimension"]
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	if key, ok := strings.CutPrefix(dim, postgres.TagDimPrefix); ok {
		if err := s.declaredTag(r.Context(), rp.Project, key, "dimension"); err != nil {
			return nil, err
		}
		if rp.Tag != "" || rp.Agent != "" {
			return nil, apierr.Field("dimension", "a tag dimension takes neither a tag filter nor agent_name")
		}
	} else if !analytics.ValidDimension(dim) {
		return nil, apierr.Newf(apierr.NotFound, "dimension: no analytics dimension %q", dim).
			WithHint("use one of user, session, workflow, tool, model, agent, billing, or tag.<key> of a declared tag")
	}
	res, err := s.reports().ByKeys(r.Context(), rp, rp.Limit, dim)
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
	res, err := s.reports().ByKeys(r.Context(), rp, 0, "agent")
	if err != nil {
		return wire.CacheReport{}, err
	}
	return cacheReport(analytics.Total(res[0].Keys)), nil
}
