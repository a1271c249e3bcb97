package postgres

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/runs"
)

// The daily run rollups change by the difference a refresh makes
// (runs.Delta): what the chunk's runs contributed before it, read from
// their stored rows, taken away, and what they contribute now added. A
// chunk then costs what its own runs cost; recomputing every touched key
// from all its runs read a whole busy day's runs for each chunk, so the
// run merger slowed as a day filled (about 130 runs a second over a day
// of a million runs).

// Old contributions of runs (p, t): their runs rows (with the outcome
// they were counted with, migration 0028) and step and tool rows; and the
// runs' outcomes now.
const (
	oldRunsSQL = `SELECT r.project_id::text, r.trace_id, r.agent_name, r.first_ts, coalesce(r.workflow, ''), r.outcome,
  r.cost_nano, r.calls, r.steps, r.max_depth, r.success_calls, r.tags
FROM unnest($1::uuid[], $2::text[]) AS u(p, t) JOIN runs r ON r.project_id = u.p AND r.trace_id = u.t`
	// oldGroupsSQL reads the step rows as written; the tool rows with the
	// markers filled (oldGroupsOf).
	oldGroupsSQL = `SELECT s.project_id::text, s.trace_id, s./* TEMPLATE_BEGIN: name */ step_name /* TEMPLATE_END */, s.calls, s.cost_nano, s.tokens, s.latency_sum,
  s.latency_count, s.success_calls
FROM unnest($1::uuid[], $2::text[]) AS u(p, t) JOIN /* TEMPLATE_BEGIN: table */ run_steps /* TEMPLATE_END */ s ON s.project_id = u.p AND s.trace_id = u.t`
	outcomesSQL = `SELECT o.project_id::text, o.trace_id, o.success
FROM unnest($1::uuid[], $2::text[]) AS u(p, t) JOIN outcomes o ON o.project_id = u.p AND o.trace_id = u.t`
)

// oldGroupsOf is oldGroupsSQL for each per-run table.
var oldGroupsOf = map[string]string{
	"run_steps": fillSQL(oldGroupsSQL, nil),
	"run_tools": fillSQL(oldGroupsSQL, map[string]string{"table": "run_tools", "name": "tool_name"}),
}

// readContributions reads what runs (p, t) contribute to the daily
// rollups as stored, and their outcomes now, in one round trip.
func readContributions(ctx context.Context, tx pgx.Tx, p, t []string) (map[RunKey]runs.Contribution, map[RunKey]*bool, error) {
	old := map[RunKey]runs.Contribution{}
	outcomes := map[RunKey]*bool{}
	var steps, tools map[RunKey][]runs.Group
	b := &pgx.Batch{}
	b.Queue(oldRunsSQL, p, t).Query(func(rows pgx.Rows) error {
		var k RunKey
		var c runs.Contribution
		_, err := pgx.ForEachRow(rows, []any{&k.ProjectID, &k.TraceID, &c.Key.Agent, &c.Key.Day, &c.Key.Workflow,
			&c.Outcome, &c.Summary.CostNano, &c.Summary.Calls, &c.Summary.Steps, &c.Summary.MaxDepth,
			&c.Summary.SuccessCalls, &c.Tags}, func() error {
			c.Key.Project, c.Key.Day = k.ProjectID, dayOf(c.Key.Day)
			old[k] = c
			c.Outcome, c.Tags = nil, nil
			return nil
		})
		return err
	})
	queueGroups := func(table string, into *map[RunKey][]runs.Group) {
		b.Queue(oldGroupsOf[table], p, t).Query(func(rows pgx.Rows) error {
			*into = map[RunKey][]runs.Group{}
			var k RunKey
			var g runs.Group
			_, err := pgx.ForEachRow(rows, []any{&k.ProjectID, &k.TraceID, &g.Name, &g.Calls, &g.CostNano, &g.Tokens,
				&g.LatencySum, &g.LatencyCount, &g.SuccessCalls}, func() error {
				(*into)[k] = append((*into)[k], g)
				return nil
			})
			return err
		})
	}
	queueGroups("run_steps", &steps)
	queueGroups("run_tools", &tools)
	queueOutcomes(b, p, t, outcomes)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	for k, c := range old {
		c.Steps, c.Tools = steps[k], tools[k]
		old[k] = c
	}
	return old, outcomes, nil
}

// queueOutcomes queues the read of runs (p, t)'s outcomes into into.
func queueOutcomes(b *pgx.Batch, p, t []string, into map[RunKey]*bool) {
	b.Queue(outcomesSQL, p, t).Query(func(rows pgx.Rows) error {
		var k RunKey
		var ok bool
		_, err := pgx.ForEachRow(rows, []any{&k.ProjectID, &k.TraceID, &ok}, func() error {
			into[k] = new(ok)
			return nil
		})
		return err
	})
}

// contributionOf is what a built run contributes with its outcome and
// the tags its runs row was stored with.
func contributionOf(br builtRun, tags []string) runs.Contribution {
	return runs.Contribution{
		Key:     runs.DayKey{Project: br.ProjectID, Agent: br.AgentName, Day: dayOf(br.FirstTS), Workflow: br.Workflow},
		Tags:    tags,
		Outcome: br.Outcome, Summary: br.Summary, Steps: br.Steps, Tools: br.Tools,
	}
}

// Applying a change: rows are added to (maxima raised) in key order, under
// the keys' locks (dayLockSQL, toolDayLockSQL), then rows left with no run
// are deleted, then the dirty keys recomputed (queueDayRefresh). The step
// and tool day rows share their statements' file, with the table marker
// filled for the tool rows.
var (
	dayAddSQL, dayEmptySQL         = mustQuery("run_day_add.sql"), mustQuery("run_day_empty.sql")
	stepAddSQL, stepEmptySQL       = fillSQL(mustQuery("run_group_day_add.sql"), nil), fillSQL(mustQuery("run_group_day_empty.sql"), nil)
	toolAddSQL                     = fillSQL(mustQuery("run_group_day_add.sql"), map[string]string{"table": "run_tool_day"})
	toolEmptySQL                   = fillSQL(mustQuery("run_group_day_empty.sql"), map[string]string{"table": "run_tool_day"})
	toolAllAddSQL, toolAllEmptySQL = mustQuery("run_tool_all_day_add.sql"), mustQuery("run_tool_all_day_empty.sql")
)

// queueDayDelta queues the locks of every key the change touches, the
// change itself, and the recomputation of its dirty keys.
func queueDayDelta(b *pgx.Batch, c runs.Change) {
	if len(c.Days) == 0 {
		return
	}
	locks := map[dayKey]bool{}
	for k := range c.Days {
		locks[k] = true
	}
	p, d, w, _ := dayKeyArrays(locks)
	b.Queue(dayLockSQL, p, d, w)
	b.Queue(toolDayLockSQL, p, d)

	days := slices.SortedFunc(maps.Keys(c.Days), compareDayKeys)
	var dc dayCols
	for _, k := range days {
		dc.add(k, c.Days[k])
	}
	b.Queue(dayAddSQL, pgx.StrictNamedArgs{"project_id": dc.p, "agent_name": dc.a, "tag": dc.t, "bucket": dc.d, "workflow": dc.w,
		"runs": dc.runs, "cost_nano": dc.cost, "max_cost_nano": dc.maxCost, "calls": dc.calls, "steps": dc.steps,
		"max_depth": dc.maxDepth, "success_calls": dc.success, "succeeded": dc.succeeded, "failed": dc.failed,
		"success_cost": dc.successCost, "failure_cost": dc.failureCost})
	if e := emptiable(days, c.Days, func(r runs.DayRow) int64 { return r.Runs }); len(e) > 0 {
		var ec dayCols
		for _, k := range e {
			ec.add(k, c.Days[k])
		}
		b.Queue(dayEmptySQL, pgx.StrictNamedArgs{"project_id": ec.p, "agent_name": ec.a, "tag": ec.t, "bucket": ec.d,
			"workflow": ec.w})
	}
	for _, g := range []struct {
		rows       map[runs.GroupKey]runs.GroupRow
		add, empty string
	}{
		{c.Steps, stepAddSQL, stepEmptySQL},
		{c.Tools, toolAddSQL, toolEmptySQL},
		{c.ToolAll, toolAllAddSQL, toolAllEmptySQL},
	} {
		if len(g.rows) == 0 {
			continue
		}
		keys := slices.SortedFunc(maps.Keys(g.rows), compareGroupKeys)
		var gc deltaGroupCols
		for _, k := range keys {
			gc.add(k, g.rows[k])
		}
		b.Queue(g.add, pgx.StrictNamedArgs{"project_id": gc.p, "agent_name": gc.a, "tag": gc.t, "bucket": gc.d,
			"workflow": gc.w,
			"name":     gc.n, "calls": gc.calls, "runs": gc.runs, "cost_nano": gc.cost, "tokens": gc.tokens,
			"latency_sum": gc.latSum, "latency_count": gc.latCount, "success_calls": gc.success})
		if e := emptiable(keys, g.rows, func(r runs.GroupRow) int64 { return r.Runs }); len(e) > 0 {
			var ec deltaGroupCols
			for _, k := range e {
				ec.add(k, g.rows[k])
			}
			b.Queue(g.empty, pgx.StrictNamedArgs{"project_id": ec.p, "agent_name": ec.a, "tag": ec.t, "bucket": ec.d,
				"workflow": ec.w, "name": ec.n})
		}
	}
	queueDayRefresh(b, c.Dirty)
}

// emptiable is those of keys (in their order) whose change takes runs
// away: only their rows can be left with no run. A row that counted a run
// keeps it under a change that takes none away, and a key a change adds
// runs to gets a row with them; during a back-fill, nearly every change
// only adds, and the deletes of rows left empty (a tenth of a refresh's
// statements' time) had nothing to do.
func emptiable[K comparable, R any](keys []K, rows map[K]R, runsOf func(R) int64) []K {
	var out []K
	for _, k := range keys {
		if runsOf(rows[k]) <= 0 {
			out = append(out, k)
		}
	}
	return out
}

func compareDayKeys(x, y runs.DayKey) int {
	return cmp.Or(cmp.Compare(x.Project, y.Project), cmp.Compare(x.Tag, y.Tag), cmp.Compare(x.Agent, y.Agent),
		x.Day.Compare(y.Day), cmp.Compare(x.Workflow, y.Workflow))
}

func compareGroupKeys(x, y runs.GroupKey) int {
	return cmp.Or(compareDayKeys(x.DayKey, y.DayKey), cmp.Compare(x.Name, y.Name))
}

// dayCols are run_day rows as unnest arrays.
type dayCols struct {
	p, a, t, w                                           []string
	d                                                    []time.Time
	runs, cost, maxCost, calls, steps, maxDepth, success []int64
	succeeded, failed, successCost, failureCost          []int64
}

func (c *dayCols) add(k runs.DayKey, r runs.DayRow) {
	c.p, c.a, c.t = append(c.p, k.Project), append(c.a, k.Agent), append(c.t, k.Tag)
	c.d, c.w = append(c.d, k.Day), append(c.w, k.Workflow)
	c.runs, c.cost, c.maxCost = append(c.runs, r.Runs), append(c.cost, r.CostNano), append(c.maxCost, r.MaxCostNano)
	c.calls, c.steps, c.maxDepth = append(c.calls, r.Calls), append(c.steps, r.Steps), append(c.maxDepth, r.MaxDepth)
	c.success, c.succeeded, c.failed = append(c.success, r.SuccessCalls), append(c.succeeded, r.Succeeded), append(c.failed, r.Failed)
	c.successCost, c.failureCost = append(c.successCost, r.SuccessCost), append(c.failureCost, r.FailureCost)
}

// deltaGroupCols are step or tool rollup rows as unnest arrays.
type deltaGroupCols struct {
	p, a, t, w, n                                        []string
	d                                                    []time.Time
	calls, runs, cost, tokens, latSum, latCount, success []int64
}

func (c *deltaGroupCols) add(k runs.GroupKey, r runs.GroupRow) {
	c.p, c.a, c.t, c.d = append(c.p, k.Project), append(c.a, k.Agent), append(c.t, k.Tag), append(c.d, k.Day)
	c.w, c.n = append(c.w, k.Workflow), append(c.n, k.Name)
	c.calls, c.runs, c.cost, c.tokens = append(c.calls, r.Calls), append(c.runs, r.Runs), append(c.cost, r.CostNano),
		append(c.tokens, r.Tokens)
	c.latSum, c.latCount, c.success = append(c.latSum, r.LatencySum), append(c.latCount, r.LatencyCount),
		append(c.success, r.SuccessCalls)
}
