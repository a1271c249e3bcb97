package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/analytics"
)

// The agent view's reads that no report makes (docs/agent-view.md). The
// spend figures come from ReadWindows and the run figures from the run
// reports; these add what only the agent view asks: first and last call,
// distinct users and sessions per agent, run totals and repeated work
// grouped by agent, the cost of breaching calls, and the latency and step
// facts of one agent's detail.

// AgentFacts are one agent's figures over a window that the spend reports
// do not give. Money is nano-USD.
type AgentFacts struct {
	FirstSeen, LastSeen time.Time
	Developers          int64 // distinct user_id
	Sessions            int64 // distinct session_id
}

// agentSeenSQL finds each agent's first and last call of the window by two
// probes of events (project_id, agent_name, ts): no scan.
const agentSeenSQL = `SELECT a,
  (SELECT min(ts) FROM events WHERE project_id = $1 AND agent_name = a AND ts >= $2 AND ts < $3),
  (SELECT max(ts) FROM events WHERE project_id = $1 AND agent_name = a AND ts >= $2 AND ts < $3)
FROM unnest($4::text[]) AS a`

// agentKeysSQL counts distinct users and sessions per agent over a
// window (agent_keys.sql), for all the named agents or for one.
var agentKeysSQL = map[bool]string{
	false: fillSQL(mustQuery("agent_keys.sql"), nil),
	true: fillSQL(mustQuery("agent_keys.sql"), map[string]string{
		"rollup_agent": "agent_name = @agent AND @agents::text[] IS NOT NULL", "raw_agent": "e.agent_name = @agent"}),
}

// ReadAgentFacts reads the facts of agents (agent alone when not "") over
// [from, to), in one snapshot.
func (db *DB) ReadAgentFacts(ctx context.Context, project, agent string, agents []string, from, to time.Time) (map[string]AgentFacts, error) {
	out := map[string]AgentFacts{}
	seg := analytics.Decompose(analytics.Span{Start: from, End: to}, analytics.Day)
	err := db.readSnapshot(ctx, project, func(tx pgx.Tx, t tail) error {
		rolled := t.rolled(seg)
		rows, err := tx.Query(ctx, agentSeenSQL, project, from, to, agents)
		if err != nil {
			return err
		}
		var name string
		var first, last *time.Time
		if _, err := pgx.ForEachRow(rows, []any{&name, &first, &last}, func() error {
			if first != nil && last != nil {
				out[name] = AgentFacts{FirstSeen: first.UTC(), LastSeen: last.UTC()}
			}
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, agentKeysSQL[agent != ""], pgx.StrictNamedArgs{"project_id": project,
			"agents": agents, "agent": agent, "days_start": seg.Days.Start, "days_end": seg.Days.End,
			"hour_head_start": seg.HourHead.Start, "hour_head_end": seg.HourHead.End,
			"hour_tail_start": seg.HourTail.Start, "hour_tail_end": seg.HourTail.End,
			"raw_head_start": seg.RawHead.Start, "raw_head_end": seg.RawHead.End,
			"raw_tail_start": seg.RawTail.Start, "raw_tail_end": seg.RawTail.End,
			"watermark": t.watermark, "rolled_start": rolled.Start, "rolled_end": rolled.End})
		if err != nil {
			return err
		}
		var users, sessions int64
		_, err = pgx.ForEachRow(rows, []any{&name, &users, &sessions}, func() error {
			f := out[name]
			f.Developers, f.Sessions = users, sessions
			out[name] = f
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err // readSnapshot translated it
	}
	return out, nil
}

// AgentRuns are one agent's traced runs of a window (runs whose first call
// is the agent's) and its repeated work. Money is nano-USD.
type AgentRuns struct {
	Runs, CostNano, Calls int64
	// RepeatedNano is the wasted cost of identical calls repeated inside
	// the runs; RepeatedRuns the runs with any.
	RepeatedNano, RepeatedRuns int64
	// RepeatedInput is per model: input tokens of the repeated occurrences
	// (every occurrence beyond the first), the prompts sent again.
	RepeatedInput map[string]int64
}

// agentRepeatsSQL sums repeated work per agent (model NULL) and per agent
// and model, of the runs whose first call lies in the window; with a tag
// filter (true), of the runs with the tag's value ($5, TagPair).
var agentRepeatsSQL = map[bool]string{false: agentRepeats(""),
	true: agentRepeats(` AND EXISTS (SELECT 1 FROM runs r WHERE r.project_id = x.project_id AND r.trace_id = x.trace_id
  AND r.tags @> ARRAY[$5::text])`)}

func agentRepeats(tagged string) string {
	return `SELECT run_agent, model, sum(wasted_nano)::bigint, count(DISTINCT trace_id),
  sum((occurrences - 1) * input_tokens)::bigint
FROM run_repeats x
WHERE project_id = $1 AND run_first_ts >= $2 AND run_first_ts < $3 AND ($4::text = '' OR run_agent = $4)` + tagged + `
GROUP BY GROUPING SETS ((run_agent), (run_agent, model))`
}

// ReadAgentRuns reads the run totals and repeated work per agent (only
// q.AgentName's when set) of the runs whose first call lies in the window
// (and has q's tag value, when q has a tag filter).
func (db *DB) ReadAgentRuns(ctx context.Context, q RunQuery) (map[string]*AgentRuns, error) {
	if err := db.FreshRunsIn(ctx, q.ProjectID, q.Start, q.End); err != nil {
		return nil, err
	}
	out := map[string]*AgentRuns{}
	get := func(agent string) *AgentRuns {
		if out[agent] == nil {
			out[agent] = &AgentRuns{RepeatedInput: map[string]int64{}}
		}
		return out[agent]
	}
	q.Limit = 0
	args := q.args()
	sql := fillSQL(mustQuery("agent_runs.sql"), q.rollupParts(args, true))
	err := db.onReader(ctx, func(pool *pgxpool.Pool) error {
		clear(out)
		rows, err := pool.Query(ctx, sql, args)
		if err != nil {
			return err
		}
		var agent string
		var n, cost, calls int64
		if _, err := pgx.ForEachRow(rows, []any{&agent, &n, &cost, &calls}, func() error {
			a := get(agent)
			a.Runs, a.CostNano, a.Calls = n, cost, calls
			return nil
		}); err != nil {
			return err
		}
		repeatArgs := []any{q.ProjectID, q.Start, q.End, q.AgentName}
		if q.Tag != "" {
			repeatArgs = append(repeatArgs, TagPair(q.Tag, q.TagValue))
		}
		rows, err = pool.Query(ctx, agentRepeatsSQL[q.Tag != ""], repeatArgs...)
		if err != nil {
			return err
		}
		var model *string
		var wasted, runs, input int64
		_, err = pgx.ForEachRow(rows, []any{&agent, &model, &wasted, &runs, &input}, func() error {
			a := get(agent)
			if model == nil {
				a.RepeatedNano, a.RepeatedRuns = wasted, runs
			} else {
				a.RepeatedInput[*model] = input
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, translate(err, "runs")
	}
	return out, nil
}
