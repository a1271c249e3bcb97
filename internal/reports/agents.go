package reports

import (
	"context"
	"sync"
	"time"

	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// The agent view (docs/agent-view.md "Summary row" and "Detail"): one row
// per agent combining the spend rollups (ReadWindows), the run reports'
// tables and the guardrails' compliance, with the signal that says what to
// look at.

// AgentRow is one agent's summary row: its spend and what it is compared
// with, its models, runs, breaches and days, and the signal chosen from
// them.
type AgentRow struct {
	Sums analytics.Keyed
	// ProjectCostNano is the window's spend of the whole project, for the
	// agent's share; PreviousCostNano the agent's over the window before.
	ProjectCostNano, PreviousCostNano int64
	// Models are the agent's, most expensive first.
	Models []AgentModel
	Facts  postgres.AgentFacts
	// Runs is never nil: an agent without runs has zero totals.
	Runs   *postgres.AgentRuns
	Breach Breach
	// Days are every UTC day of the window, days without calls zero.
	Days   []agentview.Day
	Signal agentview.Signal
}

// AgentModel is one model an agent used and its share of cached input.
type AgentModel struct {
	analytics.Keyed
	CachedShare *float64
}

// AgentView is the summary rows of a window and what was read for them
// that the detail shows too.
type AgentView struct {
	Window analytics.Span
	Rows   []AgentRow
	// Compliance is each guarded agent's (only the agent's when narrowed).
	Compliance map[string]*AgentCompliance
	// rawExpired and rollupExpired are the project's retention cutoffs.
	rawExpired, rollupExpired *time.Time
}

// agentGrain is the coarsest rollup a window of rng reads, as the spend
// reports read it: raw events for 1h, days (with hours at the edges) else.
func agentGrain(rng analytics.Range) analytics.Grain {
	if rng == analytics.Range1h {
		return analytics.Raw
	}
	return analytics.Day
}

// TagFilter is a report's tag filter: only the calls (and the runs) whose
// value of the declared key Key is Value; no filter when Key is "".
type TagFilter struct{ Key, Value string }

// agentQueries are the spend reads of the agent view: the window by agent
// and day, the window before (prev) by agent, the models (per agent over all
// agents) and, for one agent, the project's spend for its share. A tag
// filter reads the first two from the tag rollups, which keep no model per
// agent: no models.
func agentQueries(project, agent string, tag TagFilter, rng analytics.Range, w, prev analytics.Span) []postgres.WindowQuery {
	g := agentGrain(rng)
	if tag.Key != "" {
		return []postgres.WindowQuery{
			{ProjectID: project, Dim: "agent", Segments: analytics.Decompose(w, g), BucketWidth: day, KeyBuckets: true,
				Tag: tag.Key, TagValue: tag.Value},
			{ProjectID: project, Dim: "agent", Segments: analytics.Decompose(prev, g), Tag: tag.Key, TagValue: tag.Value},
		}
	}
	qs := []postgres.WindowQuery{
		{ProjectID: project, Dim: "agent", AgentName: agent, Segments: analytics.Decompose(w, g),
			BucketWidth: day, KeyBuckets: true},
		{ProjectID: project, Dim: "agent", AgentName: agent, Segments: analytics.Decompose(prev, g)},
		{ProjectID: project, Dim: "model", AgentName: agent, PerAgent: agent == "", Segments: analytics.Decompose(w, g)},
		{ProjectID: project, Dim: "agent", Segments: analytics.Decompose(w, g), Limit: 1},
	}
	if agent == "" {
		return qs[:3]
	}
	return qs
}

// AgentView builds the summary rows of every agent with calls in rng's
// window (only agent's when not ""), most expensive first, at most limit.
// With a tag filter (not with agent) a row sums the agent's calls and runs
// of the tag's value; it has no models, facts (first and last call,
// developers, sessions) nor breaches, which are not kept by tag.
func (rs *Reports) AgentView(ctx context.Context, project, agent string, tag TagFilter, rng analytics.Range, limit int) (AgentView, error) {
	ret, err := rs.DB.Retention(ctx, project)
	if err != nil {
		return AgentView{}, err
	}
	raw, rollup := ret.RawExpiredBefore(rs.Now()), ret.RollupExpiredBefore(rs.Now())
	keep := func(s analytics.Span) analytics.Span { return analytics.Retained(s, raw, rollup, false) }
	w := keep(analytics.Window(rng, rs.Now()))
	// The window before reaches a range further into what may have expired.
	prev := keep(analytics.Span{Start: w.Start.Add(-rng.Duration()), End: w.Start})
	qs := agentQueries(project, agent, tag, rng, w, prev)
	for i := range qs {
		qs[i] = qs[i].ComplementEdges(rs.Now(), raw)
	}
	// The run totals and the breaches do not depend on the spend read: they
	// are read beside it, on other connections.
	var wg sync.WaitGroup
	var runsOf map[string]*postgres.AgentRuns
	var breaches map[string]Breach
	var compliance map[string]*AgentCompliance
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
			facts, factsErr = rs.DB.ReadAgentFacts(ctx, project, agent, []string{agent}, w.Start, w.End)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		runsOf, runsErr = rs.DB.ReadAgentRuns(ctx, postgres.RunQuery{ProjectID: project, Start: w.Start, End: w.End,
			AgentName: agent, Tag: tag.Key, TagValue: tag.Value})
	}()
	if tag.Key == "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			breaches, compliance, breachErr = rs.breaches(ctx, project, rng, only)
		}()
	}
	defer wg.Wait()
	res, err := rs.DB.ReadWindows(ctx, qs...)
	if err != nil {
		return AgentView{}, err
	}
	sums, days := keyDays(res[0].KeyPoints)
	projectCost := analytics.Total(sums).CostNano
	if agent != "" {
		projectCost = res[3].AllCostNano
	}
	sums = sums[:min(len(sums), limit)]
	v := AgentView{Window: w, Rows: make([]AgentRow, 0, len(sums)), rawExpired: raw, rollupExpired: rollup}
	names := make([]string, len(sums))
	for i, a := range sums {
		names[i] = a.Key
	}
	previous := map[string]int64{}
	for _, k := range res[1].Keys {
		previous[k.Key] = k.CostNano
	}
	var models map[string][]analytics.Keyed
	if tag.Key == "" {
		models = modelsByAgent(res[2].Keys, agent)
	}
	if agent == "" && tag.Key == "" && len(sums) > 0 {
		if facts, err = rs.DB.ReadAgentFacts(ctx, project, agent, names, w.Start, w.End); err != nil {
			return v, err
		}
	}
	wg.Wait()
	for _, err := range []error{runsErr, breachErr, factsErr} {
		if err != nil {
			return v, err
		}
	}
	v.Compliance = compliance
	cat := rs.Catalogue.Load()
	for _, a := range sums {
		row := AgentRow{Sums: a, ProjectCostNano: projectCost, PreviousCostNano: previous[a.Key],
			Facts: facts[a.Key], Runs: runsOf[a.Key], Breach: breaches[a.Key], Days: agentview.DailySeries(w, days[a.Key])}
		v.Rows = append(v.Rows, withSignal(cat, row, models[a.Key]))
	}
	return v, nil
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

// withSignal completes row with its models (their cached share priced by
// cat) and chooses its signal.
func withSignal(cat *pricing.Catalogue, row AgentRow, models []analytics.Keyed) AgentRow {
	a := row.Sums
	if row.Runs == nil {
		row.Runs = &postgres.AgentRuns{}
	}
	row.Models = make([]AgentModel, len(models))
	for i, m := range models {
		row.Models[i] = AgentModel{Keyed: m, CachedShare: agentview.ModelCachedShare(cat, m.Key, m.CachedTokens, m.InputTokens)}
	}
	row.Signal = agentview.ChooseSignal(agentview.SignalInput{CostNano: a.CostNano, Calls: a.Calls, TracedCalls: a.TracedCalls,
		OutputOver16Calls: a.OutputOver16Calls, Breaches: row.Breach.Count, BreachCostNano: row.Breach.CostNano,
		RepeatedCost: row.Runs.RepeatedNano, RepeatedRuns: row.Runs.RepeatedRuns, FailedCalls: a.Calls - a.SuccessCalls,
		FailedCost: a.FailedCostNano, Cheaper: cheaper(cat, models)})
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
