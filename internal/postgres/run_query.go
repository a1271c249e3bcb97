package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// RunQuery selects the runs a run report reads: a project's runs whose
// first call lies in [Start, End), optionally of one agent (the agent of
// the run's first call), of one workflow and of one value of a declared
// tag key (the value of the run's first call, runs.tags).
type RunQuery struct {
	ProjectID  string
	Start, End time.Time
	AgentName  string
	// Workflow narrows to one workflow when HasWorkflow.
	Workflow    string
	HasWorkflow bool
	// Tag and TagValue narrow to the runs whose value of the declared key
	// Tag is TagValue (a tag filter) when Tag is not "".
	Tag, TagValue string
	// Limit caps an array after sorting.
	Limit int
}

// args are the parameters every run report names: the project, the
// window and the limit (NULL: all).
func (q RunQuery) args() pgx.StrictNamedArgs {
	var limit any
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	return pgx.StrictNamedArgs{"project_id": q.ProjectID, "start": q.Start, "end": q.End, "limit": limit}
}

// runColumns name a row's run columns for runsWhere: a runs row (r) or a
// run_repeats row (x), which carries its run's but for the tags, read
// from the run by key (tagged: the condition on them).
type runColumns struct{ project, firstTS, agent, workflow, tagged string }

// runTagged is a runs row's (alias r) condition of a tag filter: its tags
// hold the element key=value (@tag_pair, migration 0035).
const runTagged = "r.tags @> ARRAY[@tag_pair::text]"

// A repeat's run's tags are a scalar subquery, not EXISTS: the planner
// turned EXISTS into a join that read every repeat of the window and
// sorted them (40 ms at 90 days of 28,000 runs, against 0.2 unfiltered),
// where the walk of run_repeats_wasted_idx, looking up each row's run,
// stops at the limit.
var (
	runsCols    = runColumns{"r.project_id", "r.first_ts", "r.agent_name", "r.workflow", runTagged}
	repeatsCols = runColumns{"x.project_id", "x.run_first_ts", "x.run_agent", "x.run_workflow",
		"(SELECT r.tags FROM runs r WHERE r.project_id = x.project_id AND r.trace_id = x.trace_id) @> ARRAY[@tag_pair::text]"}
)

// TagPair is a run's tags element of key's value: key=value.
func TagPair(key, value string) string { return key + "=" + value }

// tagWhere adds the tag filter's parameters to args and returns its
// condition (tagged) with a leading AND; "" without a filter.
func (q RunQuery) tagWhere(tagged string, args pgx.StrictNamedArgs) string {
	if q.Tag == "" {
		return ""
	}
	args["tag_pair"] = TagPair(q.Tag, q.TagValue)
	return " AND " + tagged
}

// runsWhere is the condition on the query's runs for a file's runs marker,
// adding the filters' parameters to args. The statement texts differ per
// filter so each gets its own plan.
func (q RunQuery) runsWhere(c runColumns, args pgx.StrictNamedArgs) map[string]string {
	where := c.project + " = @project_id AND " + c.firstTS + " >= @start AND " + c.firstTS + " < @end"
	if q.AgentName != "" {
		args["agent"] = q.AgentName
		where += " AND " + c.agent + " = @agent"
	}
	if q.HasWorkflow {
		args["workflow"] = q.Workflow
		where += " AND " + c.workflow + " = @workflow"
	}
	where += q.tagWhere(c.tagged, args)
	return map[string]string{"runs": where}
}

// daySplit returns the whole UTC days [d1, d2) of the window, read from the
// daily rollups; the runs of [Start, d1) and [d2, End) are read from the
// runs table. A window inside one day reads only runs.
func (q RunQuery) daySplit() (d1, d2 time.Time) {
	d1, d2 = dayOf(q.Start), dayOf(q.End)
	if d1.Before(q.Start) {
		d1 = d1.Add(24 * time.Hour)
	}
	if d1.After(d2) {
		return q.End, q.End
	}
	return d1, d2
}

// rollupParts are the conditions of a file's days marker (the daily
// rollup rows, alias x) and edges marker (the runs of the partial days,
// alias r), adding their parameters to args: the whole days, and the agent
// (” reads the rows over all agents; perAgent, every agent's rows), and
// the workflow when the query has one. The days are the rows of the tag
// filter's value (migration 0040), or those over every run (tag ”); the
// edges keep the runs with the value.
func (q RunQuery) rollupParts(args pgx.StrictNamedArgs, perAgent bool) map[string]string {
	args["days_start"], args["days_end"] = q.daySplit()
	args["agent"] = q.AgentName
	args["tag"] = ""
	if q.Tag != "" {
		args["tag"] = TagPair(q.Tag, q.TagValue)
	}
	agent := "x.agent_name = @agent"
	if perAgent && q.AgentName == "" {
		agent = "x.agent_name <> '' AND @agent::text = ''"
	}
	days := "x.project_id = @project_id AND x.tag = @tag AND " + agent +
		" AND x.bucket >= @days_start AND x.bucket < @days_end"
	if q.HasWorkflow {
		args["workflow"] = q.Workflow
		days += " AND x.workflow = @workflow"
	}
	return map[string]string{"days": days, "edges": q.edgesOn("r") + q.tagWhere(runTagged, args)}
}

// edgesOn is the condition on a row (alias) carrying a run's first call,
// agent and workflow for the runs of the partial days at the window's
// edges, with the query's agent and workflow; rollupParts has set their
// parameters.
func (q RunQuery) edgesOn(alias string) string {
	edges := alias + ".project_id = @project_id AND ((" + alias + ".first_ts >= @start AND " + alias +
		".first_ts < @days_start) OR (" + alias + ".first_ts >= @days_end AND " + alias + ".first_ts < @end))"
	if q.AgentName != "" {
		edges += " AND " + alias + ".agent_name = @agent"
	}
	if q.HasWorkflow {
		edges += " AND coalesce(" + alias + ".workflow, '') = @workflow"
	}
	return edges
}

// childEdges sets the edge_rows and edges markers of the step and tool
// reads (queries/run_group_rows.sql) for the rows of table (run_steps or
// run_tools, alias s): without a tag filter the rows themselves, by their
// run's first call, agent and workflow (migration 0043); under one, the
// edge runs of rollupParts' edges condition (alias r, the tags being the
// run's) joined to their rows by key, LATERAL … OFFSET 0 so the planner
// looks up the value's few runs' rows instead of hashing the whole table.
// A set-based lookup of those (a CTE of the runs, their rows by trace_id =
// ANY) was measured slower (docs/analytics.md).
func (q RunQuery) childEdges(parts map[string]string, table string) {
	if q.Tag != "" {
		parts["edge_rows"] = "runs r CROSS JOIN LATERAL (SELECT * FROM " + table +
			" s WHERE s.project_id = r.project_id AND s.trace_id = r.trace_id OFFSET 0) s"
		return
	}
	parts["edge_rows"], parts["edges"] = table+" s", q.edgesOn("s")
}
