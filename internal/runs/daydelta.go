package runs

import (
	"slices"
	"time"
)

// The daily run rollups (the store's run_day, run_step_day, run_tool_day
// and run_tool_all_day) are sums over runs keyed by the run's project,
// agent, UTC day of its first call and workflow, plus ” agent rows over
// every agent; and the same rows again per tag of the run (a declared
// key's value, key=value), so a report narrowed to a tag value reads a row
// per day and key too. Refreshing a chunk of runs changes them by the difference
// between what the runs contributed before and what they contribute now,
// so a refresh costs what its own runs cost, however many other runs a
// day holds. Only the maxima cannot be taken back: a key one of whose
// runs got cheaper, shallower or left it is named dirty, for the store to
// recompute from its runs.

// DayKey keys a daily run rollup row. Tag is "" for the rows over every
// run, key=value for the rows of the runs with that tag.
type DayKey struct {
	Project, Agent, Tag string
	Day                 time.Time
	Workflow            string
}

// DayRow is a run_day row's figures, or a change to them.
type DayRow struct {
	Runs, CostNano, MaxCostNano, Calls, Steps, MaxDepth, SuccessCalls int64
	// Succeeded and Failed count runs by declared outcome, with their cost.
	Succeeded, Failed, SuccessCost, FailureCost int64
}

// GroupRow is a step or tool rollup row's figures, or a change to them.
type GroupRow struct {
	Calls, Runs, CostNano, Tokens, LatencySum, LatencyCount, SuccessCalls int64
}

// GroupKey keys a step or tool row: a day key and the step or tool name.
type GroupKey struct {
	DayKey
	Name string
}

// Contribution is what one run adds to the daily rollups: its key (Tag
// ""), its tags, its declared outcome (nil: none), its totals and its step
// and tool groups.
type Contribution struct {
	Key     DayKey
	Tags    []string
	Outcome *bool
	Summary Summary
	Steps   []Group
	Tools   []Group
}

// Change is a refresh's change to the daily rollups: rows to add (maxima
// to raise), per agent and for ” (every agent), each over every run and
// per tag, and the per-agent keys (Tag "") whose maxima must be
// recomputed, with every tag's rows of theirs.
type Change struct {
	Days    map[DayKey]DayRow
	Steps   map[GroupKey]GroupRow
	Tools   map[GroupKey]GroupRow
	ToolAll map[GroupKey]GroupRow // Workflow is always ""
	Dirty   map[DayKey]bool
}

// Delta is the change from the runs' contributions before a refresh (old)
// to after it (new), paired by run: a run absent from new has no calls
// now, one absent from old is new.
func Delta[K comparable](old, new map[K]Contribution) Change {
	c := Change{Days: map[DayKey]DayRow{}, Steps: map[GroupKey]GroupRow{}, Tools: map[GroupKey]GroupRow{},
		ToolAll: map[GroupKey]GroupRow{}, Dirty: map[DayKey]bool{}}
	for run, o := range old {
		c.add(o, -1)
		n, ok := new[run]
		if !ok || n.Key != o.Key || !slices.Equal(n.Tags, o.Tags) || n.Summary.CostNano < o.Summary.CostNano ||
			n.Summary.MaxDepth < o.Summary.MaxDepth {
			c.Dirty[o.Key] = true
		}
	}
	for _, n := range new {
		c.add(n, 1)
	}
	return c
}

// add adds (sign 1) or takes away (sign −1) one run's contribution, under
// its agent and under ”, over every run and under each of its tags.
// Maxima only rise: taking a run away leaves them.
func (c *Change) add(r Contribution, sign int64) {
	keys := make([]DayKey, 0, 2*(1+len(r.Tags)))
	for _, tag := range append([]string{""}, r.Tags...) {
		k := r.Key
		k.Tag = tag
		all := k
		all.Agent = ""
		keys = append(keys, k, all)
	}
	for _, k := range keys {
		c.addDay(k, r, sign)
		// Steps and tools are kept per tag over every agent only: no
		// report reads one agent's steps or tools under a tag.
		if k.Tag != "" && k.Agent != "" {
			continue
		}
		addGroups(c.Steps, k, r.Steps, sign)
		addGroups(c.Tools, k, r.Tools, sign)
		noWorkflow := k
		noWorkflow.Workflow = ""
		addGroups(c.ToolAll, noWorkflow, r.Tools, sign)
	}
}

// addDay adds (sign 1) or takes away (sign −1) one run's figures to the
// run_day row k.
func (c *Change) addDay(k DayKey, r Contribution, sign int64) {
	d := c.Days[k]
	s := r.Summary
	d.Runs += sign
	d.CostNano += sign * s.CostNano
	d.Calls += sign * s.Calls
	d.Steps += sign * s.Steps
	d.SuccessCalls += sign * s.SuccessCalls
	if sign > 0 {
		d.MaxCostNano, d.MaxDepth = max(d.MaxCostNano, s.CostNano), max(d.MaxDepth, s.MaxDepth)
	}
	if r.Outcome != nil && *r.Outcome {
		d.Succeeded += sign
		d.SuccessCost += sign * s.CostNano
	} else if r.Outcome != nil {
		d.Failed += sign
		d.FailureCost += sign * s.CostNano
	}
	c.Days[k] = d
}

func addGroups(into map[GroupKey]GroupRow, k DayKey, groups []Group, sign int64) {
	for _, g := range groups {
		gk := GroupKey{DayKey: k, Name: g.Name}
		r := into[gk]
		r.Calls += sign * g.Calls
		r.Runs += sign
		r.CostNano += sign * g.CostNano
		r.Tokens += sign * g.Tokens
		r.LatencySum += sign * g.LatencySum
		r.LatencyCount += sign * g.LatencyCount
		r.SuccessCalls += sign * g.SuccessCalls
		into[gk] = r
	}
}
