package apiserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// The agent view (docs/agent-view.md "Summary row" and "Detail"): one row
// per agent combining the spend rollups (ReadWindows), the run reports'
// tables and the guardrails' compliance, with the signal that says what to
// look at.

// Limits of the agents summary.
const (
	defaultSummaryLimit = 50
	maxSummaryLimit     = 200
)

// analyticsAgentSummary is GET /v1/analytics/agents/summary.
func (s *Server) analyticsAgentSummary(r *http.Request) ([]wire.AgentSummaryRow, error) {
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r.URL.Query().Get("limit"), "limit", defaultSummaryLimit, 1, maxSummaryLimit)
	if err != nil {
		return nil, err
	}
	v, err := s.readAgentView(r.Context(), callerOf(r).ProjectID, "", rng, limit)
	if err != nil {
		return nil, err
	}
	return v.rows, nil
}

// agentView is the summary rows of a window and what was read for them
// that the detail shows too.
type agentView struct {
	window     analytics.Span
	rows       []wire.AgentSummaryRow
	compliance map[string]*wire.AgentCompliance
}

// agentGrain is the coarsest rollup a window of rng reads, as the spend
// reports read it: raw events for 1h, days (with hours at the edges) else.
func agentGrain(rng analytics.Range) analytics.Grain {
	if rng == analytics.Range1h {
		return analytics.Raw
	}
	return analytics.Day
}

// readAgentView builds the summary rows of every agent with calls in the
// window (only agent's when not ""), most expensive first, at most limit.
func (s *Server) readAgentView(ctx context.Context, project, agent string, rng analytics.Range, limit int) (agentView, error) {
	w := analytics.Window(rng, s.Now())
	prev := analytics.Span{Start: w.Start.Add(-rng.Duration()), End: w.Start}
	g := agentGrain(rng)
	qs := []postgres.WindowQuery{
		{ProjectID: project, Dim: "agent", AgentName: agent, Segments: analytics.Decompose(w, g),
			BucketWidth: 24 * time.Hour, KeyBuckets: true},
		{ProjectID: project, Dim: "agent", AgentName: agent, Segments: analytics.Decompose(prev, g)},
		{ProjectID: project, Dim: "model", AgentName: agent, PerAgent: agent == "", Segments: analytics.Decompose(w, g)},
		// The project's spend, for share_percent of one agent.
		{ProjectID: project, Dim: "agent", Segments: analytics.Decompose(w, g), Limit: 1},
	}
	if agent == "" {
		qs = qs[:3]
	}
	// The run totals and the breaches do not depend on the spend read: they
	// are read beside it, on other connections.
	var wg sync.WaitGroup
	var runsOf map[string]*postgres.AgentRuns
	var breaches map[string]breachFacts
	var compliance map[string]*wire.AgentCompliance
	var runsErr, breachErr error
	var only map[string]bool
	if agent != "" {
		only = map[string]bool{agent: true}
	}
	// One agent's facts need no name from the spend read either.
	var facts map[string]postgres.AgentFacts
	var factsErr error
	if agent != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			facts, factsErr = s.DB.ReadAgentFacts(ctx, project, agent, []string{agent}, w.Start, w.End)
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		runsOf, runsErr = s.DB.ReadAgentRuns(ctx, postgres.RunQuery{ProjectID: project, Start: w.Start, End: w.End, AgentName: agent})
	}()
	go func() {
		defer wg.Done()
		breaches, compliance, breachErr = s.readBreaches(ctx, project, rng, only)
	}()
	defer wg.Wait()
	res, err := s.DB.ReadWindows(ctx, qs...)
	if err != nil {
		return agentView{}, err
	}
	sums, days := keyDays(res[0].KeyPoints)
	projectCost := analytics.Total(sums).CostNano
	if agent != "" {
		projectCost = res[3].AllCostNano
	}
	sums = sums[:min(len(sums), limit)]
	v := agentView{window: w, rows: make([]wire.AgentSummaryRow, 0, len(sums))}
	names := make([]string, len(sums))
	for i, a := range sums {
		names[i] = a.Key
	}
	previous := map[string]int64{}
	for _, k := range res[1].Keys {
		previous[k.Key] = k.CostNano
	}
	models := modelsByAgent(res[2].Keys, agent)
	if agent == "" && len(sums) > 0 {
		if facts, err = s.DB.ReadAgentFacts(ctx, project, agent, names, w.Start, w.End); err != nil {
			return v, err
		}
	}
	wg.Wait()
	for _, err := range []error{runsErr, breachErr, factsErr} {
		if err != nil {
			return v, err
		}
	}
	v.compliance = compliance
	cat := s.Catalogue.Load()
	for _, a := range sums {
		in := agentRowInput{sums: a, projectCost: projectCost, previous: previous[a.Key], models: models[a.Key],
			facts: facts[a.Key], runs: runsOf[a.Key], breach: breaches[a.Key], days: agentview.DailySeries(w, days[a.Key])}
		v.rows = append(v.rows, summaryRow(cat, in))
	}
	return v, s.addAgentAnomalies(ctx, project, w, v.rows)
}

// keyDays sums a key-by-day read per key (most expensive first) and lists
// each key's days.
func keyDays(points []postgres.KeyPoint) ([]analytics.Keyed, map[string][]agentview.Day) {
	byKey := map[string]*analytics.Keyed{}
	days := map[string][]agentview.Day{}
	for _, p := range points {
		k := byKey[p.Key]
		if k == nil {
			k = &analytics.Keyed{Key: p.Key}
			byKey[p.Key] = k
		}
		k.Add(p.Sums)
		days[p.Key] = append(days[p.Key], agentview.Day{Day: p.Bucket, CostNano: p.CostNano, Calls: p.Calls,
			FailedCostNano: p.FailedCostNano})
	}
	out := make([]analytics.Keyed, 0, len(byKey))
	for _, k := range byKey {
		if k.Calls > 0 {
			out = append(out, *k)
		}
	}
	analytics.SortByCost(out)
	return out, days
}

// modelsByAgent groups a model read by agent, each most expensive first: a
// per-agent read's keys carry the agent, a read narrowed to agent does not.
func modelsByAgent(keys []analytics.Keyed, agent string) map[string][]analytics.Keyed {
	out := map[string][]analytics.Keyed{}
	for _, k := range keys {
		a, model := agent, k.Key
		if agent == "" {
			a, model = postgres.SplitAgentKey(k.Key)
		}
		k.Key = model
		out[a] = append(out[a], k)
	}
	for _, models := range out {
		analytics.SortByCost(models)
	}
	return out
}

// agentRowInput is everything one summary row is built from.
type agentRowInput struct {
	sums                  analytics.Keyed
	projectCost, previous int64
	models                []analytics.Keyed
	facts                 postgres.AgentFacts
	runs                  *postgres.AgentRuns
	breach                breachFacts
	days                  []agentview.Day
}

// summaryRow builds one agent summary row and chooses its signal.
func summaryRow(cat *pricing.Catalogue, in agentRowInput) wire.AgentSummaryRow {
	a := in.sums
	runs := in.runs
	if runs == nil {
		runs = &postgres.AgentRuns{}
	}
	row := wire.AgentSummaryRow{AgentRow: agentRows([]analytics.Keyed{a})[0],
		SharePercent: analytics.Percent(a.CostNano, in.projectCost), PreviousCost: money(in.previous),
		CostChangePercent: agentview.ChangePercent(a.CostNano, in.previous), Models: make([]wire.AgentModel, len(in.models)),
		Runs: runs.Runs, CostPerRun: perRun(runs.CostNano, runs.Runs), CallsPerRun: analytics.Mean(runs.Calls, runs.Runs),
		CachedShare: analytics.Percent(a.CachedTokens, a.InputTokens), CacheSavings: money(a.ReadSavingsNano - a.WritePremiumNano),
		FailedCalls: a.Calls - a.SuccessCalls, FailedCost: money(a.FailedCostNano), RepeatedCost: money(runs.RepeatedNano),
		RepeatedRuns: runs.RepeatedRuns, Developers: in.facts.Developers, Sessions: in.facts.Sessions,
		FirstSeen: optTS(in.facts.FirstSeen), LastSeen: optTS(in.facts.LastSeen), Daily: make([]wire.AgentDay, len(in.days))}
	for i, m := range in.models {
		row.Models[i] = wire.AgentModel{Model: m.Key, Calls: m.Calls, Cost: money(m.CostNano),
			CachedShare: agentview.ModelCachedShare(cat, m.Key, m.CachedTokens, m.InputTokens)}
	}
	for i, d := range in.days {
		row.Daily[i] = wire.AgentDay{Day: d.Day.Format(time.DateOnly), Cost: money(d.CostNano), Calls: d.Calls,
			FailedCost: money(d.FailedCostNano)}
	}
	sig := agentview.ChooseSignal(agentview.SignalInput{CostNano: a.CostNano, Calls: a.Calls, TracedCalls: a.TracedCalls,
		OutputOver16Calls: a.OutputOver16Calls, Breaches: in.breach.count, BreachCostNano: in.breach.costNano,
		RepeatedCost: runs.RepeatedNano, RepeatedRuns: runs.RepeatedRuns, FailedCalls: row.FailedCalls,
		FailedCost: a.FailedCostNano, Cheaper: cheaper(cat, in.models)})
	row.Signal = wire.AgentSignal{Kind: sig.Kind, Title: sig.Title, Detail: sig.Detail}
	if sig.AmountNano != nil {
		n := money(*sig.AmountNano)
		row.Signal.Amount = &n
	}
	return row
}

// cheaper is the saving of moving each of the agent's models to its ladder
// sibling, summed, named after the model with the largest saving; nil when
// no model has a cheaper sibling.
func cheaper(cat *pricing.Catalogue, models []analytics.Keyed) *agentview.Downgrade {
	var out *agentview.Downgrade
	var best int64
	for _, m := range models {
		d, ok := agentview.DowngradeSaving(cat, m.Key, m.CostNano, tokensOf(m.Sums))
		if !ok {
			continue
		}
		if out == nil {
			out = &agentview.Downgrade{}
		}
		out.SavingsNano += d.SavingsNano
		if d.SavingsNano > best {
			best, out.From, out.To = d.SavingsNano, d.From, d.To
		}
	}
	return out
}

// tokensOf are the summed tokens a downgrade is priced on.
func tokensOf(s analytics.Sums) agentview.Tokens {
	return agentview.Tokens{Input: s.InputTokens, Output: s.OutputTokens, Cached: s.CachedTokens,
		CacheWrite: s.CacheWriteTokens}
}

// agentNotFound is the detail's 404.
func agentNotFound(agent string) error {
	return apierr.Newf(apierr.NotFound, "agent %q made no call in this window", agent).
		WithHint("GET /v1/analytics/agents/summary lists the agents of a window")
}
