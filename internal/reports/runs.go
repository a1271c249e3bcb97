package reports

import (
	"context"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/runs"
)

// Sizes of a run-cost distribution.
const (
	// DefaultBuckets is the distribution's histogram size when the request
	// names none, and the agent detail's.
	DefaultBuckets = 20
	// MaxDistributionRuns is how many of the newest runs a distribution
	// reads: enough for its percentiles, bounded so one read stays small.
	MaxDistributionRuns = 100_000
)

// Distribution is the per-run cost distribution of one workflow.
type Distribution struct {
	Workflow string
	runs.Distribution
	// Truncated says the window held more runs than were read.
	Truncated bool
}

// Distribution reads the per-run cost distribution of q's workflow (by
// default its highest-spend one; none with runs is 404) over its newest
// MaxDistributionRuns runs, in buckets.
func (rs *Reports) Distribution(ctx context.Context, q postgres.RunQuery, buckets int) (Distribution, error) {
	if !q.HasWorkflow {
		name, ok, err := rs.DB.TopWorkflow(ctx, q)
		if err != nil {
			return Distribution{}, err
		}
		if !ok {
			return Distribution{}, apierr.New(apierr.NotFound, "no workflow has runs in this window")
		}
		q.Workflow, q.HasWorkflow = name, true
	}
	// One more than is kept tells whether there were more.
	q.Limit = MaxDistributionRuns + 1
	costs, err := rs.DB.RunCosts(ctx, q)
	if err != nil {
		return Distribution{}, err
	}
	if len(costs) == 0 {
		return Distribution{}, apierr.Newf(apierr.NotFound, "workflow %q has no runs in this window", q.Workflow)
	}
	truncated := len(costs) > MaxDistributionRuns
	costs = costs[:min(len(costs), MaxDistributionRuns)]
	return Distribution{Workflow: q.Workflow, Distribution: runs.Distribute(costs, buckets), Truncated: truncated}, nil
}
