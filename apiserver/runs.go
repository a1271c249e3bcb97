package apiserver

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/reports"
)

// The run reports (docs/analytics.md "Runs") read
// the runs whose first call lies in the window, from the run tables.

// Limits of the run reports that differ from the array default.
const (
	defaultTraceLimit = 50
	maxTraceLimit     = 500
	minBuckets        = 6
	maxBuckets        = 60
)

// runQuery reads range, agent_name, workflow, limit (default def, 1 to
// max) and a tag filter (tag.<key>=<value>, as the spend reports take it,
// and as they do not with agent_name) into the runs a report reads.
func (s *Server) runQuery(r *http.Request, def, max int) (postgres.RunQuery, error) {
	q := r.URL.Query()
	rng, err := analytics.ParseRange(q.Get("range"), analytics.AllRanges)
	if err != nil {
		return postgres.RunQuery{}, err
	}
	limit, err := intParam(q.Get("limit"), "limit", def, 1, max)
	if err != nil {
		return postgres.RunQuery{}, err
	}
	project := callerOf(r).ProjectID
	tag, err := s.parseTagFilter(r.Context(), project, q)
	if err != nil {
		return postgres.RunQuery{}, err
	}
	if err := tag.withoutAgent(q); err != nil {
		return postgres.RunQuery{}, err
	}
	w := analytics.Window(rng, s.Now())
	wf := q.Get("workflow")
	return postgres.RunQuery{ProjectID: project, Start: w.Start, End: w.End, AgentName: q.Get("agent_name"),
		Workflow: wf, HasWorkflow: wf != "", Tag: tag.key, TagValue: tag.value, Limit: limit}, nil
}

func (s *Server) arrayQuery(r *http.Request) (postgres.RunQuery, error) {
	return s.runQuery(r, analytics.DefaultLimit, analytics.MaxLimit)
}

// analyticsWorkflows is GET /v1/analytics/workflows.
func (s *Server) analyticsWorkflows(r *http.Request) ([]wire.WorkflowRow, error) {
	q, err := s.arrayQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.WorkflowRows(r.Context(), q)
	return workflowRows(rows), err
}

// analyticsSteps is GET /v1/analytics/workflows/steps (workflow optional).
func (s *Server) analyticsSteps(r *http.Request) ([]wire.StepRow, error) {
	q, err := s.arrayQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.StepRows(r.Context(), q)
	return stepRows(rows), err
}

// analyticsTools is GET /v1/analytics/workflows/tools.
func (s *Server) analyticsTools(r *http.Request) ([]wire.ToolRow, error) {
	q, err := s.arrayQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.ToolRows(r.Context(), q)
	return toolRows(rows), err
}

// analyticsRepeatedWork is GET /v1/analytics/workflows/repeated-work.
func (s *Server) analyticsRepeatedWork(r *http.Request) ([]wire.RepeatedWorkRow, error) {
	q, err := s.arrayQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.RepeatRows(r.Context(), q)
	return repeatedRows(rows), err
}

// analyticsOutcomes is GET /v1/analytics/workflows/outcomes.
func (s *Server) analyticsOutcomes(r *http.Request) ([]wire.OutcomeRow, error) {
	q, err := s.arrayQuery(r)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.WorkflowRows(r.Context(), q)
	return outcomeRows(rows), err
}

// analyticsDistribution is GET /v1/analytics/workflows/distribution: the
// per-run costs of one workflow (by default the highest-spend one; none
// with runs is 404), of its newest 100,000 runs in the window.
func (s *Server) analyticsDistribution(r *http.Request) (wire.Distribution, error) {
	q, err := s.runQuery(r, reports.MaxDistributionRuns, reports.MaxDistributionRuns)
	if err != nil {
		return wire.Distribution{}, err
	}
	buckets, err := intParam(r.URL.Query().Get("buckets"), "buckets", reports.DefaultBuckets, minBuckets, maxBuckets)
	if err != nil {
		return wire.Distribution{}, err
	}
	d, err := s.reports().Distribution(r.Context(), q, buckets)
	if err != nil {
		return wire.Distribution{}, err
	}
	return distribution(d), nil
}

// analyticsTraces is GET /v1/analytics/traces: the most expensive runs.
func (s *Server) analyticsTraces(r *http.Request) ([]wire.TraceRow, error) {
	q, err := s.runQuery(r, defaultTraceLimit, maxTraceLimit)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.TraceRows(r.Context(), q)
	return traceRows(rows), err
}

// analyticsTrace is GET /v1/analytics/traces/{trace_id}: flat spans with
// parent ids, depth and step index, the step and tool sums, and the
// outcome; a run with only an outcome has no spans; a trace not in the
// project is 404. A run that started before the project's raw cutoff has
// lost its calls (all, or the first ones): it answers the totals the run
// tables keep, with no spans, and expired_before; 404 with a hint naming
// the cutoff when the run tables hold nothing of it either.
func (s *Server) analyticsTrace(r *http.Request) (wire.TraceDetail, error) {
	ctx, id, project := r.Context(), mux.Vars(r)["trace_id"], callerOf(r).ProjectID
	ret, err := s.DB.Retention(ctx, project)
	if err != nil {
		return wire.TraceDetail{}, err
	}
	expired := ret.RawExpiredBefore(s.Now())
	if expired != nil {
		tr, err := s.DB.ReadRunTotals(ctx, project, id)
		if err == nil && tr.Run.Summary.FirstTS.Before(*expired) {
			d := traceDetail(id, tr)
			d.ExpiredBefore = expiredTS(expired)
			return d, nil
		}
		if e := (*apierr.Error)(nil); err != nil && (!errors.As(err, &e) || e.Code != apierr.NotFound) {
			return wire.TraceDetail{}, err
		}
	}
	tr, err := s.DB.ReadTrace(ctx, project, id)
	if err == nil && expired != nil && tr.Run != nil && tr.Run.Summary.FirstTS.Before(*expired) {
		// Calls hidden by this project's retention (shorter than the
		// deployment's longest) whose run is not in the run tables yet.
		err = apierr.Newf(apierr.NotFound, "trace %q not found in this project", id)
	}
	if e := (*apierr.Error)(nil); expired != nil && errors.As(err, &e) && e.Code == apierr.NotFound {
		// A run older than the retention is gone with its calls: say so.
		return wire.TraceDetail{}, e.WithHint("this project's raw calls before " + ts(*expired) +
			" have expired (its retention): a run that started before has no detail left")
	}
	if err != nil {
		return wire.TraceDetail{}, err
	}
	d := traceDetail(id, tr)
	d.ExpiredBefore = expiredTS(expired)
	return d, nil
}
