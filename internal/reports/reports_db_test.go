package reports_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/reports"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// env is a migrated database of the test's own with one project, and the
// reports over it at a fixed clock.
type env struct {
	db      *postgres.DB
	project string
	now     time.Time
	rs      *reports.Reports
}

func newEnv(t *testing.T) env {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	_, p, err := db.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: now.Add(time.Hour), ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var cat atomic.Pointer[pricing.Catalogue]
	cat.Store(pricing.Builtin())
	return env{db: db, project: p.ID, now: now,
		rs: &reports.Reports{DB: db, Now: func() time.Time { return now }, Catalogue: &cat}}
}

// write stores n calls of agent costing cost each, an hour ago, in one
// run per call (of workflow, when not ""), and merges them as the
// extension's mergers do.
func (e env) write(t *testing.T, agent, workflow string, n int, cost int64) {
	t.Helper()
	evs := make([]event.Event, n)
	for i := range evs {
		evs[i] = event.Event{ProjectID: e.project, EventID: uuid.NewString(), AgentName: agent, Model: "gpt-4o",
			InputTokens: 10, OutputTokens: 1, TotalTokens: 11, CostNano: cost, Priced: true,
			Timestamp: e.now.Add(-time.Hour), Success: true, Billing: "api", Source: "batch",
			TraceID: fmt.Sprintf("%s-%s-%d", agent, workflow, i), Workflow: workflow}
	}
	ctx := context.Background()
	if _, err := e.db.Write(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.MergeRuns(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

func isNotFound(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Code == apierr.NotFound
}

// TestAgentViewCombinesSpendRunsAndShare checks the summary rows over
// stored calls: most expensive first, the limit, each agent's runs and
// share of the project's spend, narrowed to one agent as well.
func TestAgentViewCombinesSpendRunsAndShare(t *testing.T) {
	e := newEnv(t)
	e.write(t, "big", "wf", 3, 3_000)
	e.write(t, "small", "", 1, 1_000)
	ctx := context.Background()

	v, err := e.rs.AgentView(ctx, e.project, "", reports.TagFilter{}, analytics.Range24h, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) != 2 || v.Rows[0].Sums.Key != "big" || v.Rows[1].Sums.Key != "small" {
		t.Fatalf("rows %+v, want big then small", v.Rows)
	}
	big := v.Rows[0]
	if big.Sums.CostNano != 9_000 || big.ProjectCostNano != 10_000 || big.Runs == nil || big.Runs.Runs != 3 {
		t.Errorf("big: cost %d of %d, runs %+v; want 9000 of 10000, 3 runs", big.Sums.CostNano, big.ProjectCostNano, big.Runs)
	}
	if len(big.Days) == 0 || len(big.Models) != 1 || big.Models[0].Key != "gpt-4o" || big.Signal.Kind == "" {
		t.Errorf("big: days %d, models %+v, signal %+v", len(big.Days), big.Models, big.Signal)
	}

	v, err = e.rs.AgentView(ctx, e.project, "", reports.TagFilter{}, analytics.Range24h, 1)
	if err != nil || len(v.Rows) != 1 || v.Rows[0].ProjectCostNano != 10_000 {
		t.Errorf("limit 1: %+v %v; want big alone, its share still of the whole project", v.Rows, err)
	}
	one, err := e.rs.AgentView(ctx, e.project, "small", reports.TagFilter{}, analytics.Range24h, 1)
	if err != nil || len(one.Rows) != 1 || one.Rows[0].ProjectCostNano != 10_000 || one.Rows[0].Sums.CostNano != 1_000 {
		t.Errorf("narrowed to small: %+v %v; want its 1000 of the project's 10000", one.Rows, err)
	}
}

// TestAgentDetailSectionsAndItsNotFound checks that the detail reads its
// sections for an agent with runs, has no distribution for one without a
// workflow, and is 404 for an agent without calls.
func TestAgentDetailSectionsAndItsNotFound(t *testing.T) {
	e := newEnv(t)
	e.write(t, "big", "wf", 3, 3_000)
	e.write(t, "small", "", 1, 1_000)
	ctx := context.Background()

	d, err := e.rs.AgentDetail(ctx, e.project, "big", analytics.Range24h)
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Sums.Key != "big" || len(d.ByModel) != 1 || len(d.Traces) != 3 || d.Outcomes.Runs != 3 {
		t.Errorf("big: summary %q, by model %d, traces %d, outcome runs %d; want big 1 3 3",
			d.Summary.Sums.Key, len(d.ByModel), len(d.Traces), d.Outcomes.Runs)
	}
	if d.Distribution == nil || d.Distribution.Workflow != "wf" || d.Distribution.Runs != 3 || d.Distribution.Truncated {
		t.Errorf("big's distribution %+v, want wf's 3 runs", d.Distribution)
	}
	if d.Compliance != nil {
		t.Errorf("compliance %+v of an agent without a guardrail", d.Compliance)
	}

	d, err = e.rs.AgentDetail(ctx, e.project, "small", analytics.Range24h)
	if err != nil || d.Distribution != nil || d.TailCost.Runs != 0 {
		t.Errorf("small: distribution %+v tail %+v (%v); want none, no workflow", d.Distribution, d.TailCost, err)
	}
	if _, err := e.rs.AgentDetail(ctx, e.project, "nobody", analytics.Range24h); !isNotFound(err) {
		t.Errorf("unknown agent: %v, want not_found", err)
	}
}

// TestDistributionPicksTheTopWorkflowOrIsNotFound checks the workflow a
// distribution falls back to, and its 404s.
func TestDistributionPicksTheTopWorkflowOrIsNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := analytics.Window(analytics.Range24h, e.now)
	q := postgres.RunQuery{ProjectID: e.project, Start: w.Start, End: w.End}
	if _, err := e.rs.Distribution(ctx, q, reports.DefaultBuckets); !isNotFound(err) {
		t.Errorf("no runs: %v, want not_found", err)
	}
	e.write(t, "a", "cheap", 4, 1_000)
	e.write(t, "a", "dear", 2, 5_000)
	d, err := e.rs.Distribution(ctx, q, reports.DefaultBuckets)
	if err != nil || d.Workflow != "dear" || d.Runs != 2 {
		t.Errorf("default: %q %d runs (%v), want dear's 2", d.Workflow, d.Runs, err)
	}
	named := q
	named.Workflow, named.HasWorkflow = "cheap", true
	if d, err = e.rs.Distribution(ctx, named, reports.DefaultBuckets); err != nil || d.Workflow != "cheap" || d.Runs != 4 {
		t.Errorf("named: %q %d runs (%v), want cheap's 4", d.Workflow, d.Runs, err)
	}
	named.Workflow = "none"
	if _, err := e.rs.Distribution(ctx, named, reports.DefaultBuckets); !isNotFound(err) {
		t.Errorf("a workflow without runs: %v, want not_found", err)
	}
}

// TestFullMatchesTheSeparateReads checks that the one-snapshot full report,
// over all agents and narrowed to one, agrees with the reads by key.
func TestFullMatchesTheSeparateReads(t *testing.T) {
	e := newEnv(t)
	e.write(t, "big", "wf", 3, 3_000)
	e.write(t, "small", "", 1, 1_000)
	ctx := context.Background()
	for _, agent := range []string{"", "small"} {
		p := e.rs.Params(e.project, agent, analytics.Range7d, 1)
		f, err := e.rs.Full(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.rs.ByKeys(ctx, p, 0, "agent", "model")
		if err != nil {
			t.Fatal(err)
		}
		if f.Total != analytics.Total(res[0].Keys) || len(f.Agents) != 1 || f.Agents[0].Key != res[0].Keys[0].Key {
			t.Errorf("agent %q: full %+v, by key %+v", agent, f.Agents, res[0].Keys)
		}
		if f.Models.AllCostNano != res[1].AllCostNano {
			t.Errorf("agent %q: models cost %d, by key %d", agent, f.Models.AllCostNano, res[1].AllCostNano)
		}
		series, err := e.rs.Timeseries(ctx, p)
		if err != nil || len(series) != len(f.Points) {
			t.Errorf("agent %q: %d points, timeseries %d (%v)", agent, len(f.Points), len(series), err)
		}
	}
}
