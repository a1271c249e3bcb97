package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/runs"
)

// Runs (migration 0010, docs/analytics.md "Runs"): the tables runs,
// run_steps, run_tools and run_repeats hold what internal/runs computes
// from each run's stored calls. Every statement that adds or re-prices
// calls refreshes the runs it touched in the same transaction, from all
// their stored calls, so calls arriving late, out of order or twice give
// the same rows as one batch.

// RunKey names one run.
type RunKey struct{ ProjectID, TraceID string }

func sortKeys(keys []RunKey) []RunKey {
	keys = slices.Clone(keys)
	slices.SortFunc(keys, func(a, b RunKey) int {
		if c := strings.Compare(a.ProjectID, b.ProjectID); c != 0 {
			return c
		}
		return strings.Compare(a.TraceID, b.TraceID)
	})
	return slices.Compact(keys)
}

// runKeysOf is the SQL array of the runs a CTE's rows (with project_id
// and trace_id) belong to, each as "project trace" (parseRunKeys).
func runKeysOf(cte string) string {
	return "ARRAY(SELECT DISTINCT project_id::text || ' ' || trace_id FROM " + cte + " WHERE trace_id IS NOT NULL)"
}

// parseRunKeys reads runKeysOf's array; a project id holds no space.
func parseRunKeys(pairs []string) []RunKey {
	out := make([]RunKey, 0, len(pairs))
	for _, s := range pairs {
		p, t, _ := strings.Cut(s, " ")
		out = append(out, RunKey{ProjectID: p, TraceID: t})
	}
	return out
}

func keyArrays(keys []RunKey) ([]string, []string) {
	p, t := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		p[i], t[i] = k.ProjectID, k.TraceID
	}
	return p, t
}

// customPlans makes the rest of a transaction plan each statement for
// its arguments and the partitions' current sizes, never a cached
// generic plan.
const customPlans = "SET LOCAL plan_cache_mode = force_custom_plan"

// runLockSQL takes the runs' advisory locks (class 4242 of the two-key
// space, apart from the one-key re-pricing lock) in one global order (by
// hash), so concurrent batches touching the same runs queue instead of
// deadlocking; a batch that waited then reads the calls the other committed.
//
// The same statement then takes the runs' projects' 4247 locks shared
// (runTagsShareSQL), in one round trip.
const runLockSQL = `SELECT count(pg_advisory_xact_lock(4242, h)) FROM (
  SELECT DISTINCT hashtext(p || '/' || t) AS h FROM unnest($1::text[], $2::text[]) AS u(p, t) ORDER BY 1) s
UNION ALL ` + runTagsShareSQL

// RefreshRuns recomputes the run rows of keys from their stored calls,
// inside tx: lock, read, compute (runs.Build), replace, change the daily
// rollups by the difference (run_delta.go), and delete the runs' marks
// (runs_pending.go).
func RefreshRuns(ctx context.Context, tx pgx.Tx, keys []RunKey) error {
	if len(keys) == 0 {
		return nil
	}
	keys = sortKeys(keys)
	p, t := keyArrays(keys)
	// Planned for these runs each time: a plan cached while a month's
	// partition was empty scans it whole once per run (seconds per refresh
	// during a back-fill into that month) until the partition is analyzed.
	if _, err := tx.Exec(ctx, customPlans); err != nil {
		return err
	}
	// The marks first (runs_pending.go): a batch marking a run from now on
	// waits for this commit; one that marked it before has committed its calls.
	var locked int64
	if err := tx.QueryRow(ctx, lockMarksSQL, p, t).Scan(&locked); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, runLockSQL, p, t); err != nil {
		return err
	}
	old, outcomes, err := readContributions(ctx, tx, p, t)
	if err != nil {
		return err
	}
	built, err := readRuns(ctx, tx, runCallsBoundedSQL, p, t)
	if err != nil {
		return err
	}
	for i, br := range built {
		built[i].Outcome = outcomes[br.RunKey]
	}
	return writeRuns(ctx, tx, keys, built, old)
}

// builtRun is one computed run, its key and the outcome it is counted
// with (nil: none).
type builtRun struct {
	RunKey
	runs.Run
	Outcome *bool
}

// writeRuns replaces the rows of keys (deleting a run cascades to its
// steps, tools and repeats) with the built runs, then changes the daily
// rollups by the difference from the runs' old contributions: two round
// trips, as the runs' tags are their first calls' values, which the
// insert reads (runTagsOf) and returns.
func writeRuns(ctx context.Context, tx pgx.Tx, keys []RunKey, built []builtRun, old map[RunKey]runs.Contribution) error {
	p, t := keyArrays(keys)
	b := &pgx.Batch{}
	b.Queue(deleteMarksSQL, p, t)
	b.Queue(`DELETE FROM runs r USING unnest($1::uuid[], $2::text[]) AS u(p, t)
WHERE r.project_id = u.p AND r.trace_id = u.t`, p, t)
	tags := map[RunKey][]string{}
	queueRunInserts(b, built, tags)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	now := make(map[RunKey]runs.Contribution, len(built))
	for _, br := range built {
		now[br.RunKey] = contributionOf(br, tags[br.RunKey])
	}
	b = &pgx.Batch{}
	queueDayDelta(b, runs.Delta(old, now))
	return tx.SendBatch(ctx, b).Close()
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The inserts of built runs and their children, one element of each
// array per row (queries/runs_insert.sql and its siblings).
var (
	runsInsertSQL       = fillSQL(mustQuery("runs_insert.sql"), map[string]string{"run_tags": runTagsOf})
	runStepsInsertSQL   = mustQuery("run_steps_insert.sql")
	runToolsInsertSQL   = mustQuery("run_tools_insert.sql")
	runRepeatsInsertSQL = mustQuery("run_repeats_insert.sql")
)

// queueRunInserts queues the inserts of built runs and their children;
// with tags not nil, the insert stores each run's tags there.
func queueRunInserts(b *pgx.Batch, built []builtRun, tags map[RunKey][]string) {
	if len(built) == 0 {
		return
	}
	var r runCols
	var st stepCols
	var tl groupCols
	var rp repeatCols
	for _, br := range built {
		r.add(br)
		for _, g := range br.Steps {
			st.add(br, g)
		}
		for _, g := range br.Tools {
			tl.add(br, g)
		}
		for i, x := range br.Repeats {
			rp.add(br, i, x)
		}
	}
	// Each run keeps the outcome its rollup contribution counts
	// (migration 0028): the one the refresh read, sent with the row. Read
	// again by the insert (a later snapshot), an outcome recorded between
	// the two reads would be stored as counted while the rollups never
	// counted it, and the run's next refresh, finding it unchanged, would
	// add nothing. An ingest recording an outcome marks the run, and waits
	// for a refresh holding the mark, but a re-pricing refreshes runs no
	// mark guards.
	q := b.Queue(runsInsertSQL, pgx.StrictNamedArgs{"project_id": r.p, "trace_id": r.t, "agent_name": r.agent,
		"workflow": r.workflow, "first_ts": r.first, "first_event_id": r.firstID, "last_end": r.lastEnd,
		"calls": r.calls, "cost_nano": r.cost, "tool_calls": r.tools, "failed_calls": r.failed,
		"success_calls": r.success, "tokens": r.tokens, "max_depth": r.depth, "steps": r.steps, "outcome": r.outcome})
	if tags != nil {
		q.Query(func(rows pgx.Rows) error {
			var k RunKey
			var v []string
			_, err := pgx.ForEachRow(rows, []any{&k.ProjectID, &k.TraceID, &v}, func() error {
				tags[k], v = v, nil
				return nil
			})
			return err
		})
	}
	if len(st.p) > 0 {
		b.Queue(runStepsInsertSQL, pgx.StrictNamedArgs{"project_id": st.p, "trace_id": st.t, "step_name": st.name,
			"calls": st.calls, "cost_nano": st.cost, "tokens": st.tokens, "latency_sum": st.latSum,
			"latency_count": st.latCount, "success_calls": st.success, "agent_name": st.agent, "first_ts": st.first,
			"workflow": st.workflow, "tool_calls": st.toolCalls, "models": st.models})
	}
	if len(tl.p) > 0 {
		b.Queue(runToolsInsertSQL, pgx.StrictNamedArgs{"project_id": tl.p, "trace_id": tl.t, "tool_name": tl.name,
			"calls": tl.calls, "cost_nano": tl.cost, "tokens": tl.tokens, "latency_sum": tl.latSum,
			"latency_count": tl.latCount, "success_calls": tl.success, "agent_name": tl.agent, "first_ts": tl.first,
			"workflow": tl.workflow})
	}
	if len(rp.p) > 0 {
		b.Queue(runRepeatsInsertSQL, pgx.StrictNamedArgs{"project_id": rp.p, "trace_id": rp.t, "seq": rp.seq,
			"workflow": rp.workflow, "step_name": rp.step, "tool_name": rp.tool, "model": rp.model,
			"input_tokens": rp.input, "request_hash": rp.hash, "occurrences": rp.occ, "spend_nano": rp.spend,
			"wasted_nano": rp.wasted, "first_seen": rp.first, "run_first_ts": rp.runFirst, "run_agent": rp.runAgent,
			"run_workflow": rp.runWorkflow})
	}
}

// runCols are the runs columns as unnest arrays.
type runCols struct {
	p, t, agent, firstID                                      []string
	workflow                                                  []*string
	first, lastEnd                                            []time.Time
	calls, cost, tools, failed, success, tokens, depth, steps []int64
	outcome                                                   []*bool
}

func (c *runCols) add(br builtRun) {
	s := br.Summary
	c.p, c.t, c.agent, c.firstID = append(c.p, br.ProjectID), append(c.t, br.TraceID), append(c.agent, s.AgentName),
		append(c.firstID, s.FirstEventID)
	c.workflow = append(c.workflow, nullIfEmpty(s.Workflow))
	c.first, c.lastEnd = append(c.first, s.FirstTS), append(c.lastEnd, s.LastEnd)
	c.calls, c.cost, c.tools = append(c.calls, s.Calls), append(c.cost, s.CostNano), append(c.tools, s.ToolCalls)
	c.failed, c.success, c.tokens = append(c.failed, s.FailedCalls), append(c.success, s.SuccessCalls),
		append(c.tokens, s.Tokens)
	c.depth, c.steps = append(c.depth, s.MaxDepth), append(c.steps, s.Steps)
	c.outcome = append(c.outcome, br.Outcome)
}

// groupCols are run_steps or run_tools columns as unnest arrays: the
// group's sums and its run's agent, first call and workflow.
type groupCols struct {
	p, t, name, agent                              []string
	calls, cost, tokens, latSum, latCount, success []int64
	first                                          []time.Time
	workflow                                       []*string
}

// stepCols are run_steps' columns: groupCols plus the step's tool calls
// and models (migration 0021).
type stepCols struct {
	groupCols
	models    []string
	toolCalls []int64
}

func (c *stepCols) add(br builtRun, g runs.Group) {
	c.groupCols.add(br, g)
	c.toolCalls, c.models = append(c.toolCalls, g.ToolCalls), append(c.models, textArrayLiteral(g.Models))
}

func (c *groupCols) add(br builtRun, g runs.Group) {
	k := br.RunKey
	c.agent, c.first = append(c.agent, br.AgentName), append(c.first, br.FirstTS)
	c.workflow = append(c.workflow, nullIfEmpty(br.Workflow))
	c.p, c.t, c.name = append(c.p, k.ProjectID), append(c.t, k.TraceID), append(c.name, g.Name)
	c.calls, c.cost, c.tokens = append(c.calls, g.Calls), append(c.cost, g.CostNano), append(c.tokens, g.Tokens)
	c.latSum, c.latCount, c.success = append(c.latSum, g.LatencySum), append(c.latCount, g.LatencyCount),
		append(c.success, g.SuccessCalls)
}

// repeatCols are run_repeats columns as unnest arrays.
type repeatCols struct {
	p, t, model                []string
	seq                        []int32
	workflow, step, tool, hash []*string
	input, occ, spend, wasted  []int64
	first                      []time.Time
	runFirst                   []time.Time
	runAgent                   []string
	runWorkflow                []*string
}

func (c *repeatCols) add(br builtRun, i int, x runs.Repeat) {
	k := br.RunKey
	c.runFirst, c.runAgent = append(c.runFirst, br.FirstTS), append(c.runAgent, br.AgentName)
	c.runWorkflow = append(c.runWorkflow, nullIfEmpty(br.Workflow))
	c.p, c.t, c.model, c.seq = append(c.p, k.ProjectID), append(c.t, k.TraceID), append(c.model, x.Model),
		append(c.seq, int32(i))
	c.workflow, c.step = append(c.workflow, nullIfEmpty(x.Workflow)), append(c.step, nullIfEmpty(x.StepName))
	c.tool, c.hash = append(c.tool, nullIfEmpty(x.ToolName)), append(c.hash, nullIfEmpty(x.RequestHash))
	c.input, c.occ = append(c.input, x.InputTokens), append(c.occ, x.Occurrences)
	c.spend, c.wasted, c.first = append(c.spend, x.SpendNano), append(c.wasted, x.WastedNano),
		append(c.first, x.FirstSeen)
}
