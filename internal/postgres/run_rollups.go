package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/runs"
)

// Daily run rollups (migration 0010): run_day, run_step_day and
// run_tool_day rows per (project, agent, UTC day of the run's first call,
// workflow), and '' agent rows over every agent; each over every run (tag
// '') and per element of the runs' tags (migration 0040). A run refresh adds the
// difference its runs make (run_delta.go); the keys whose maxima that
// cannot keep exact (a run that got cheaper or moved to another key) are
// recomputed here: the per-agent rows from the runs table, then the ''
// rows from the per-agent rows. RebuildRuns recomputes every key.

// dayKey is one per-agent rollup key (Workflow "" for runs without one).
type dayKey = runs.DayKey

func dayOf(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// dayKeyArrays turns keys into unnest arrays, sorted and distinct.
func dayKeyArrays(keys map[dayKey]bool) (p []string, d []time.Time, w, a []string) {
	for k := range keys {
		p, d, w, a = append(p, k.Project), append(d, k.Day), append(w, k.Workflow), append(a, k.Agent)
	}
	return p, d, w, a
}

// dayLockSQL locks the keys' (project, day, workflow) blocks in one global
// order (class 4243), after the runs' locks: a refresh that waited here
// then reads the runs the other committed, so two batches adding runs to
// one key cannot both write a stale sum.
const dayLockSQL = `SELECT count(pg_advisory_xact_lock(4243, h)) FROM (
  SELECT DISTINCT hashtext(p || '/' || extract(epoch FROM d)::bigint || '/' || w) AS h
  FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(p, d, w) ORDER BY 1) s`

// The statements that recompute rollup rows read their keys at a keys
// marker: the keys of a refresh (dayKeysSQL, toolAllKeysSQL) or every key
// of a project (rebuildKeysSQL, rebuildToolAllKeysSQL). Each kind of keys
// names its own parameters (keyArgs, toolAllKeyArgs, or @project_id).

// dayKeysSQL is the unnest of the keys, aliased k(p, d, w, a).
const dayKeysSQL = `(SELECT DISTINCT * FROM unnest(@key_project::uuid[], @key_day::timestamptz[], @key_workflow::text[], @key_agent::text[]) AS k0(p, d, w, a))`

// rebuildKeysSQL are every key of project @project_id, for RebuildRuns.
const rebuildKeysSQL = `(SELECT DISTINCT project_id AS p, date_trunc('day', first_ts, 'UTC') AS d,
  coalesce(workflow, '') AS w, agent_name AS a FROM runs WHERE project_id = @project_id)`

// runsOfKey joins the runs of each key k.
const runsOfKey = `JOIN runs r ON r.project_id = k.p AND r.agent_name = k.a
  AND r.first_ts >= k.d AND r.first_ts < k.d + interval '24 hours' AND coalesce(r.workflow, '') = k.w`

// eachTag repeats each run r once over every run (tag ”) and once per
// element of its tags (t.tag).
const eachTag = ` CROSS JOIN LATERAL unnest(array_prepend(''::text, r.tags)) AS t(tag)`

var dayDeletes = func() []string {
	var out []string
	for _, t := range []string{"run_day", "run_step_day", "run_tool_day"} {
		out = append(out, `DELETE FROM `+t+` x USING /* TEMPLATE: keys */ k
WHERE x.project_id = k.p AND x.bucket = k.d AND x.workflow = k.w AND (x.agent_name = k.a OR x.agent_name = '')`)
	}
	return out
}()

const groupSums = `sum(s.calls), count(*), sum(s.cost_nano), sum(s.tokens), sum(s.latency_sum), sum(s.latency_count),
  sum(s.success_calls)`

// dayInserts recompute the per-agent rows of the keys, then their ” rows,
// every tag's (dayDeletes deleted them all). Steps and tools have rows per
// tag over every agent only (no report reads one agent's under a tag):
// summed from the runs of the keys' days and workflows, not from rows of
// each agent.
//
// A run is counted with the outcome its runs row holds (runs.outcome), the
// one its contribution to the rollups was counted with, never with the
// outcomes table: an outcome recorded since the run's last refresh marks
// the run, and the run's own refresh adds the difference to the new
// outcome (run_delta.go). A refresh of another run of the same key that
// recomputes the key in between (its run moved away or got cheaper) and
// counted the new outcome already would have it counted twice once the
// marked run's refresh added it: one succeeded run and its cost too many,
// which the next rebuild then disagreed with.
var dayInserts = []string{
	`INSERT INTO run_day (project_id, agent_name, tag, bucket, workflow, runs, cost_nano, max_cost_nano, calls, steps,
  max_depth, success_calls, succeeded, failed, success_cost, failure_cost)
SELECT k.p, k.a, t.tag, k.d, k.w, count(*), sum(r.cost_nano), max(r.cost_nano), sum(r.calls), sum(r.steps),
  max(r.max_depth), sum(r.success_calls), count(*) FILTER (WHERE r.outcome), count(*) FILTER (WHERE NOT r.outcome),
  coalesce(sum(r.cost_nano) FILTER (WHERE r.outcome), 0), coalesce(sum(r.cost_nano) FILTER (WHERE NOT r.outcome), 0)
FROM /* TEMPLATE: keys */ k ` + runsOfKey + eachTag + `
GROUP BY k.p, k.a, t.tag, k.d, k.w`,
	perAgent("run_step_day", "run_steps", "step_name"),
	perAgent("run_tool_day", "run_tools", "tool_name"),
	`INSERT INTO run_day (project_id, agent_name, tag, bucket, workflow, runs, cost_nano, max_cost_nano, calls, steps,
  max_depth, success_calls, succeeded, failed, success_cost, failure_cost)
SELECT x.project_id, '', x.tag, x.bucket, x.workflow, sum(x.runs), sum(x.cost_nano), max(x.max_cost_nano), sum(x.calls),
  sum(x.steps), max(x.max_depth), sum(x.success_calls), sum(x.succeeded), sum(x.failed), sum(x.success_cost),
  sum(x.failure_cost)
FROM (SELECT DISTINCT p, d, w FROM /* TEMPLATE: keys */ k1) k
JOIN run_day x ON x.project_id = k.p AND x.bucket = k.d AND x.workflow = k.w AND x.agent_name <> ''
GROUP BY x.project_id, x.tag, x.bucket, x.workflow`,
	allAgents("run_step_day"),
	allAgents("run_tool_day"),
	taggedAllAgents("run_step_day", "run_steps", "step_name"),
	taggedAllAgents("run_tool_day", "run_tools", "tool_name"),
}

// perAgent recomputes the per-agent rows of table for the keys from the
// keys' runs' rows in source, named by its column name.
func perAgent(table, source, name string) string {
	return `INSERT INTO ` + table + ` (project_id, agent_name, tag, bucket, workflow, name, calls, runs, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT k.p, k.a, '', k.d, k.w, s.` + name + `, ` + groupSums + `
FROM /* TEMPLATE: keys */ k ` + runsOfKey + `
JOIN ` + source + ` s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
GROUP BY k.p, k.a, k.d, k.w, s.` + name
}

// taggedAllAgents recomputes the all-agents rows per tag of table for the
// keys' days and workflows from the runs' rows in source.
func taggedAllAgents(table, source, name string) string {
	return `INSERT INTO ` + table + ` (project_id, agent_name, tag, bucket, workflow, name, calls, runs, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT k.p, '', t.tag, k.d, k.w, s.` + name + `, ` + groupSums + `
FROM (SELECT DISTINCT p, d, w FROM /* TEMPLATE: keys */ k1) k
JOIN runs r ON r.project_id = k.p AND r.first_ts >= k.d AND r.first_ts < k.d + interval '24 hours'
  AND coalesce(r.workflow, '') = k.w
CROSS JOIN LATERAL unnest(r.tags) AS t(tag)
JOIN ` + source + ` s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
GROUP BY k.p, t.tag, k.d, k.w, s.` + name
}

// allAgents recomputes the all-agents rows over every run (tag ”) of
// table for the keys' days and workflows from its per-agent rows.
func allAgents(table string) string {
	return `INSERT INTO ` + table + ` (project_id, agent_name, tag, bucket, workflow, name, calls, runs, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT x.project_id, '', '', x.bucket, x.workflow, x.name, sum(x.calls), sum(x.runs), sum(x.cost_nano), sum(x.tokens),
  sum(x.latency_sum), sum(x.latency_count), sum(x.success_calls)
FROM (SELECT DISTINCT p, d, w FROM /* TEMPLATE: keys */ k1) k
JOIN ` + table + ` x ON x.project_id = k.p AND x.bucket = k.d AND x.workflow = k.w AND x.agent_name <> '' AND x.tag = ''
GROUP BY x.project_id, x.bucket, x.workflow, x.name`
}

// Tool rows over every workflow (run_tool_all_day, migration 0014) are
// sums of the run_tool_day rows of a (project, agent, day), recomputed
// after them for each key's agent and for ”. Refreshes of one day that
// touch different workflows would both recompute the same rows, so they
// first lock the (project, day) (class 4244, in hash order, after the
// 4243 locks: every refresh takes its 4243 locks before any 4244 one).
const toolDayLockSQL = `SELECT count(pg_advisory_xact_lock(4244, h)) FROM (
  SELECT DISTINCT hashtext(p || '/' || extract(epoch FROM d)::bigint) AS h
  FROM unnest($1::text[], $2::timestamptz[]) AS u(p, d) ORDER BY 1) s`

// toolAllKeysSQL are the (project, day, agent) rows to recompute: each
// key's agent and ”.
const toolAllKeysSQL = `(SELECT DISTINCT u.p, u.d, x.a FROM unnest(@key_project::uuid[], @key_day::timestamptz[], @key_agent::text[]) AS u(p, d, a)
  CROSS JOIN LATERAL (VALUES (u.a), ('')) AS x(a))`

const toolAllDelete = `DELETE FROM run_tool_all_day x USING ` + toolAllKeysSQL + ` k
WHERE x.project_id = k.p AND x.bucket = k.d AND x.agent_name = k.a`

// rebuildToolAllKeysSQL are every (project, day, agent) of project
// @project_id's tool rows, for RebuildRuns.
const rebuildToolAllKeysSQL = `(SELECT DISTINCT project_id AS p, bucket AS d, agent_name AS a FROM run_tool_day WHERE project_id = @project_id)`

// toolAllInsert sums run_tool_day over workflows for the keys k of its
// keys marker.
const toolAllInsert = `INSERT INTO run_tool_all_day (project_id, agent_name, tag, bucket, name, calls, runs, cost_nano,
  tokens, latency_sum, latency_count, success_calls)
SELECT x.project_id, x.agent_name, x.tag, x.bucket, x.name, sum(x.calls), sum(x.runs), sum(x.cost_nano), sum(x.tokens),
  sum(x.latency_sum), sum(x.latency_count), sum(x.success_calls)
FROM /* TEMPLATE: keys */ k JOIN run_tool_day x ON x.project_id = k.p AND x.agent_name = k.a AND x.bucket = k.d
GROUP BY x.project_id, x.agent_name, x.tag, x.bucket, x.name`

// withKeys is each of stmts with keys at its keys marker.
func withKeys(keys string, stmts ...string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = fillSQL(s, map[string]string{"keys": keys})
	}
	return out
}

// The texts of a refresh and of a rebuild, filled once.
var (
	dayRefreshSQLs    = withKeys(dayKeysSQL, append(append([]string{}, dayDeletes...), dayInserts...)...)
	toolAllRefreshSQL = withKeys(toolAllKeysSQL, toolAllInsert)[0]
	dayRebuildSQLs    = withKeys(rebuildKeysSQL, dayInserts...)
	toolAllRebuildSQL = withKeys(rebuildToolAllKeysSQL, toolAllInsert)[0]
)

// queueDayRefresh queues the lock and the recomputation of keys' rows.
func queueDayRefresh(b *pgx.Batch, keys map[dayKey]bool) {
	if len(keys) == 0 {
		return
	}
	p, d, w, a := dayKeyArrays(keys)
	b.Queue(dayLockSQL, p, d, w)
	b.Queue(toolDayLockSQL, p, d)
	keyArgs := pgx.StrictNamedArgs{"key_project": p, "key_day": d, "key_workflow": w, "key_agent": a}
	for _, s := range dayRefreshSQLs {
		b.Queue(s, keyArgs)
	}
	toolAllKeyArgs := pgx.StrictNamedArgs{"key_project": p, "key_day": d, "key_agent": a}
	b.Queue(toolAllDelete, toolAllKeyArgs)
	b.Queue(toolAllRefreshSQL, toolAllKeyArgs)
}

// queueDayRebuild queues the recomputation of every rollup row of a project.
func queueDayRebuild(b *pgx.Batch, projectID string) {
	for _, t := range []string{"run_day", "run_step_day", "run_tool_day", "run_tool_all_day"} {
		b.Queue(`DELETE FROM `+t+` WHERE project_id = $1`, projectID)
	}
	args := pgx.StrictNamedArgs{"project_id": projectID}
	for _, s := range dayRebuildSQLs {
		b.Queue(s, args)
	}
	b.Queue(toolAllRebuildSQL, args)
}
