package apiserver

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/gorilla/mux"
	"golang.org/x/sync/errgroup"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/runs"
)

// Sizes of the agent detail's lists (docs/agent-view.md "Detail"): top 8
// per breakdown, the 10 most expensive runs.
const (
	detailBreakdown = 8
	detailTraces    = 10
	detailRepeats   = 10
)

// analyticsAgentDetail is GET /v1/analytics/agents/{agent_name}: the
// agent's summary row and every section a person needs to act on it, each
// read by the same store function as its standalone report narrowed to the
// agent. 404 when the agent made no call in the window.
func (s *Server) analyticsAgentDetail(r *http.Request) (wire.AgentDetail, error) {
	agent := mux.Vars(r)["agent_name"]
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return wire.AgentDetail{}, err
	}
	ctx, project := r.Context(), callerOf(r).ProjectID
	v, err := s.readAgentView(ctx, project, agent, rng, 1)
	if err != nil {
		return wire.AgentDetail{}, err
	}
	if len(v.rows) == 0 {
		return wire.AgentDetail{}, agentNotFound(agent)
	}
	out := wire.AgentDetail{Summary: v.rows[0], Compliance: v.compliance[agent]}
	// The sections do not depend on each other: they are read at once, on
	// connections of their own (at most detailReads), so the detail takes
	// about as long as its slowest section rather than the sum of them.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(detailReads)
	var latencies []int64
	var steps []postgres.AgentStep
	q := postgres.RunQuery{ProjectID: project, Start: v.window.Start, End: v.window.End, AgentName: agent}
	g.Go(func() error {
		return s.readDetailBreakdowns(gctx, &out, report{project: project, agent: agent, rng: rng, window: v.window})
	})
	g.Go(func() (err error) {
		latencies, err = s.DB.ReadAgentLatencies(gctx, project, agent, q.Start, q.End)
		return err
	})
	g.Go(func() (err error) {
		steps, err = s.DB.AgentSteps(gctx, q)
		return err
	})
	g.Go(func() error { return s.readDetailTail(gctx, &out, q) })
	limited := func(n int) postgres.RunQuery { l := q; l.Limit = n; return l }
	g.Go(func() error {
		repeats, err := s.DB.RepeatRows(gctx, limited(detailRepeats))
		out.RepeatedWork = repeatedRows(repeats)
		return err
	})
	g.Go(func() error {
		traces, err := s.DB.TraceRows(gctx, limited(detailTraces))
		out.Traces = traceRows(traces)
		return err
	})
	g.Go(func() error {
		workflows, err := s.DB.WorkflowRows(gctx, q)
		out.Outcomes = outcomesSummary(workflows)
		return err
	})
	if err := g.Wait(); err != nil {
		return wire.AgentDetail{}, err
	}
	lat := agentview.LatencyOf(latencies)
	out.Latency = wire.AgentLatency{P50: lat.P50, P95: lat.P95, P99: lat.P99, Avg: lat.Avg, SampleSize: lat.SampleSize}
	out.Steps = agentStepRows(steps)
	return out, nil
}

// detailReads bounds the agent detail's concurrent reads (a quarter of the
// default pool of 16), so one detail cannot take every connection.
const detailReads = 4

// readDetailBreakdowns reads the detail's five top-8 breakdowns in one
// snapshot.
func (s *Server) readDetailBreakdowns(ctx context.Context, out *wire.AgentDetail, rp report) error {
	res, err := s.DB.ReadWindows(ctx, rp.byKey("model", detailBreakdown), rp.byKey("tool", detailBreakdown),
		rp.byKey("user", detailBreakdown), rp.byKey("session", detailBreakdown), rp.byKey("workflow", detailBreakdown))
	if err != nil {
		return err
	}
	out.ByModel, out.ByTool, out.ByUser = dimensionRows(res[0].Keys), dimensionRows(res[1].Keys), dimensionRows(res[2].Keys)
	out.BySession, out.ByWorkflow = dimensionRows(res[3].Keys), dimensionRows(res[4].Keys)
	return nil
}

// readDetailTail reads the agent's run-cost distribution (none when no run
// has a workflow) and its tail cost.
func (s *Server) readDetailTail(ctx context.Context, out *wire.AgentDetail, q postgres.RunQuery) error {
	dist, figures, err := s.readDistribution(ctx, q, defaultBuckets)
	var ae *apierr.Error
	switch {
	case err == nil:
		out.Distribution = &dist
	case errors.As(err, &ae) && ae.Code == apierr.NotFound: // no run with a workflow: no distribution
	default:
		return err
	}
	tail := agentview.TailOf(figures)
	out.TailCost = wire.AgentTailCost{Threshold: money(tail.ThresholdNano), Runs: tail.Runs, Cost: money(tail.CostNano),
		SharePercent: tail.SharePercent}
	return nil
}

// agentStepRows turns the per-run step figures into step rows.
func agentStepRows(steps []postgres.AgentStep) []wire.AgentStepRow {
	out := make([]wire.AgentStepRow, len(steps))
	for i, st := range steps {
		models := st.Models
		if models == nil {
			models = []string{}
		}
		costs := st.RunCosts
		if !slices.IsSorted(costs) {
			costs = slices.Sorted(slices.Values(costs))
		}
		out[i] = wire.AgentStepRow{StepName: st.StepName, Tool: st.Tool, Models: models, Runs: st.Runs, Calls: st.Calls,
			CallsPerRun: analytics.Mean(st.Calls, st.Runs), MaxCallsPerRun: st.MaxCallsPerRun,
			TotalCost: money(st.CostNano), SuccessRate: analytics.Percent(st.SuccessCalls, st.Calls)}
		if len(costs) > 0 {
			med, p95 := money(runs.RoundNano(runs.Percentile(costs, 50))), money(runs.RoundNano(runs.Percentile(costs, 95)))
			out[i].MedianCostPerRun, out[i].P95CostPerRun = &med, &p95
		}
	}
	return out
}

// outcomesSummary sums the outcome figures of the agent's workflow rows.
func outcomesSummary(rows []postgres.WorkflowSums) wire.OutcomesSummary {
	in := make([]agentview.RunOutcomes, len(rows))
	for i, w := range rows {
		in[i] = agentview.RunOutcomes{Runs: w.Runs, CostNano: w.CostNano, Succeeded: w.Succeeded, Failed: w.Failed,
			SuccessCostNano: w.SuccessCostNano, FailureCostNano: w.FailureCostNano}
	}
	o := agentview.OutcomesOf(in)
	out := wire.OutcomesSummary{Runs: o.Runs, Succeeded: o.Succeeded, Failed: o.Failed, Unknown: o.Unknown,
		CostOnSuccess: money(o.CostOnSuccessNano), CostOnFailure: money(o.CostOnFailureNano), SuccessRate: o.SuccessRate}
	if o.CostPerSuccessNano != nil {
		n := money(*o.CostPerSuccessNano)
		out.CostPerSuccess = &n
	}
	return out
}
