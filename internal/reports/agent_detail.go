package reports

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Sizes of the agent detail's lists (docs/agent-view.md "Detail"): top 8
// per breakdown, the 10 most expensive runs.
const (
	detailBreakdown = 8
	detailTraces    = 10
	detailRepeats   = 10
)

// detailReads bounds the concurrent reads of one agent view, its detail's
// sections or its breaching agents' amounts (a quarter of the default pool
// of 16), so one request cannot take every connection.
const detailReads = 4

// AgentDetail is one agent's summary row and every section a person needs
// to act on it, each read by the same store function as its standalone
// report narrowed to the agent.
type AgentDetail struct {
	Summary AgentRow
	// Compliance is nil when the agent has no guardrail.
	Compliance                                     *AgentCompliance
	ByModel, ByTool, ByUser, BySession, ByWorkflow []analytics.Keyed
	Latency                                        agentview.Latency
	Steps                                          []postgres.AgentStep
	// Distribution is nil when no run of the agent has a workflow.
	Distribution *Distribution
	TailCost     agentview.TailCost
	RepeatedWork []postgres.RepeatRow
	Traces       []postgres.RunRow
	Outcomes     agentview.Outcomes
}

// AgentDetail reads agent's detail over rng's window; 404 when the agent
// made no call in it.
func (rs *Reports) AgentDetail(ctx context.Context, project, agent string, rng analytics.Range) (AgentDetail, error) {
	v, err := rs.AgentView(ctx, project, agent, TagFilter{}, rng, 1)
	if err != nil {
		return AgentDetail{}, err
	}
	if len(v.Rows) == 0 {
		return AgentDetail{}, agentNotFound(agent)
	}
	out := AgentDetail{Summary: v.Rows[0], Compliance: v.Compliance[agent]}
	// The sections do not depend on each other: they are read at once, on
	// connections of their own (at most detailReads), so the detail takes
	// about as long as its slowest section rather than the sum of them.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(detailReads)
	var latencies []int64
	var workflows []postgres.WorkflowSums
	q := postgres.RunQuery{ProjectID: project, Start: v.Window.Start, End: v.Window.End, AgentName: agent}
	p := Params{Project: project, Agent: agent, Range: rng, Window: v.Window, rawExpired: v.rawExpired,
		rollupExpired: v.rollupExpired}
	g.Go(func() error { return rs.detailBreakdowns(gctx, &out, p) })
	g.Go(func() (err error) {
		latencies, err = rs.DB.ReadAgentLatencies(gctx, project, agent, q.Start, q.End)
		return err
	})
	g.Go(func() (err error) {
		out.Steps, err = rs.DB.AgentSteps(gctx, q)
		return err
	})
	g.Go(func() error { return rs.detailTail(gctx, &out, q) })
	limited := func(n int) postgres.RunQuery { l := q; l.Limit = n; return l }
	g.Go(func() (err error) {
		out.RepeatedWork, err = rs.DB.RepeatRows(gctx, limited(detailRepeats))
		return err
	})
	g.Go(func() (err error) {
		out.Traces, err = rs.DB.TraceRows(gctx, limited(detailTraces))
		return err
	})
	g.Go(func() (err error) {
		workflows, err = rs.DB.WorkflowRows(gctx, q)
		return err
	})
	if err := g.Wait(); err != nil {
		return AgentDetail{}, err
	}
	out.Latency = agentview.LatencyOf(latencies)
	out.Outcomes = outcomesOf(workflows)
	return out, nil
}

// agentNotFound is the detail's 404.
func agentNotFound(agent string) error {
	return apierr.Newf(apierr.NotFound, "agent %q made no call in this window", agent).
		WithHint("GET /v1/analytics/agents/summary lists the agents of a window")
}

// detailBreakdowns reads the detail's five top-8 breakdowns in one
// snapshot.
func (rs *Reports) detailBreakdowns(ctx context.Context, out *AgentDetail, p Params) error {
	res, err := rs.DB.ReadWindows(ctx, p.ByKey("model", detailBreakdown), p.ByKey("tool", detailBreakdown),
		p.ByKey("user", detailBreakdown), p.ByKey("session", detailBreakdown), p.ByKey("workflow", detailBreakdown))
	if err != nil {
		return err
	}
	out.ByModel, out.ByTool, out.ByUser = res[0].Keys, res[1].Keys, res[2].Keys
	out.BySession, out.ByWorkflow = res[3].Keys, res[4].Keys
	return nil
}

// detailTail reads the agent's run-cost distribution (none when no run
// has a workflow) and its tail cost.
func (rs *Reports) detailTail(ctx context.Context, out *AgentDetail, q postgres.RunQuery) error {
	d, err := rs.Distribution(ctx, q, DefaultBuckets)
	var ae *apierr.Error
	switch {
	case err == nil:
		out.Distribution = &d
	case errors.As(err, &ae) && ae.Code == apierr.NotFound: // no run with a workflow: no distribution
	default:
		return err
	}
	out.TailCost = agentview.TailOf(d.Distribution)
	return nil
}

// outcomesOf sums the outcome figures of the agent's workflow rows.
func outcomesOf(rows []postgres.WorkflowSums) agentview.Outcomes {
	in := make([]agentview.RunOutcomes, len(rows))
	for i, w := range rows {
		in[i] = agentview.RunOutcomes{Runs: w.Runs, CostNano: w.CostNano, Succeeded: w.Succeeded, Failed: w.Failed,
			SuccessCostNano: w.SuccessCostNano, FailureCostNano: w.FailureCostNano}
	}
	return agentview.OutcomesOf(in)
}
