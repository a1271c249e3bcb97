package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
)

// spendUpsert adds each batch's metered cost (billing other than
// subscription) to the month's counter of its project, in the ingest
// statement: budget state then reads one row. sd is the batch's delta,
// sp the counter after it; rows are upserted in key order so concurrent
// batches cannot deadlock, and the row lock orders them, so each batch's
// before (after − delta) is exactly the previous batch's after.
const spendUpsert = `, sd AS (
  SELECT project_id, (date_trunc('month', ts, 'UTC') AT TIME ZONE 'UTC')::date AS month, sum(cost_nano)::bigint AS delta
  FROM ev WHERE billing <> 'subscription' GROUP BY 1, 2
), sp AS (
  INSERT INTO spend_month (project_id, month, metered_nano)
  SELECT project_id, month, delta FROM sd ORDER BY project_id, month
  ON CONFLICT (project_id, month) DO UPDATE SET metered_nano = spend_month.metered_nano + excluded.metered_nano
  RETURNING project_id, month, metered_nano
)`

// policyVersionsOf is the policy_version of each project the batch
// stored calls of, as "project_id version" strings: the hook's cache check
// costs no round trip of its own.
const policyVersionsOf = `coalesce((SELECT array_agg(id::text || ' ' || policy_version) FROM projects
    WHERE id IN (SELECT DISTINCT project_id FROM ev)), '{}')`

func parseVersions(pairs []string) map[string]int64 {
	out := make(map[string]int64, len(pairs))
	for _, p := range pairs {
		id, v, _ := strings.Cut(p, " ")
		n, _ := strconv.ParseInt(v, 10, 64)
		out[id] = n
	}
	return out
}

type spendArrays struct {
	projects     []string
	months       []time.Time
	after, delta []int64
}

func (a spendArrays) changes() []SpendChange {
	out := make([]SpendChange, len(a.projects))
	for i := range a.projects {
		out[i] = SpendChange{ProjectID: a.projects[i], Month: a.months[i].UTC(),
			BeforeNano: a.after[i] - a.delta[i], AfterNano: a.after[i]}
	}
	return out
}

// SpendChange is how one batch moved a project's metered spend of a month.
type SpendChange struct {
	ProjectID  string
	Month      time.Time
	BeforeNano int64
	AfterNano  int64
}

// Written is what an ingest transaction stored.
type Written struct {
	// Events are the batch's events, sorted by project and event_id
	// (duplicates of stored ones included: judging them again is
	// harmless, alerts are deduplicated).
	Events []event.Event
	Spend  []SpendChange
	// Versions are the policy_version of each project stored to, read in
	// the insert statement.
	Versions map[string]int64
	// RunTotals are the totals a RunTotalsWanter asked for, by project,
	// read right after the insert statement in the same round trip.
	RunTotals map[string]PrefetchedTotals
}

// RunTotalsWanter is a WriteHook that knows before the insert, from the
// policies it has cached, the runs whose totals it will judge: they are
// read in the insert's round trip instead of one of their own.
type RunTotalsWanter interface {
	WantRunTotals(events []event.Event) []RunTotalsRequest
}

// RunTotalsRequest asks for the totals of a project's runs, judged under
// the policy of version Version.
type RunTotalsRequest struct {
	ProjectID string
	Version   int64
	TraceIDs  []string
}

// PrefetchedTotals are the answer to a RunTotalsRequest (RunTotals' shape).
type PrefetchedTotals struct {
	Version int64
	ByAgent map[string][]guardrail.Run
}

// WriteHook runs inside the ingest transaction after the events are
// stored. An error fails the batch: hooks swallow their own failures
// (Savepoint) unless the transaction itself is broken.
type WriteHook interface {
	AfterWrite(ctx context.Context, tx *WriteTx, w Written) error
}

// txQuerier is what WriteTx needs of a transaction: pgx.Tx (the drain's)
// and the ingest transaction's connection (ingest_tx.go) both are.
type txQuerier interface {
	querier
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// WriteTx is the ingest transaction as a hook sees it (or the alert
// drain's transaction).
type WriteTx struct {
	tx txQuerier
	db *DB
	// deferred statements are sent with COMMIT (ingest_tx.go).
	deferred []queuedSQL
	// Undone, when set by a hook, is called if the deferred statements
	// failed and the batch committed without them.
	Undone func(error)
}

type queuedSQL struct {
	sql  string
	args []any
}

// later queues a statement that returns nothing to be sent with COMMIT.
func (w *WriteTx) later(sql string, args ...any) {
	w.deferred = append(w.deferred, queuedSQL{sql, args})
}

// LoadPolicy reads the project's policy in the transaction.
func (w *WriteTx) LoadPolicy(ctx context.Context, projectID string) (Policy, error) {
	var p Policy
	err := loadPolicy(ctx, w.tx, projectID, &p)
	return p, err
}

// runTotalsSQL reads the totals of runs (calls sharing a trace_id) that
// carry a workflow, across every batch, this one included: the runs row
// (as the last refresh left it) plus the run's mark (the calls stored
// since, runs_pending.go), in one snapshot. A run belongs to the agent of
// its first call by (timestamp, event_id). Each run is two primary-key
// probes whatever the statistics say: a LATERAL subquery with LIMIT is
// not flattened into a join, which the planner, misjudging a project's
// marks before ANALYZE, made a hash of every mark of the project.
const runTotalsSQL = `SELECT CASE WHEN r.trace_id IS NULL OR (m.first_ts, m.first_event_id COLLATE "C") <
    (r.first_ts, r.first_event_id COLLATE "C") THEN m.first_agent ELSE r.agent_name END,
  u.t, coalesce(r.tool_calls, 0) + coalesce(m.tool_calls, 0), coalesce(r.cost_nano, 0) + coalesce(m.cost_nano, 0),
  greatest(r.last_end, m.last_end)
FROM unnest($2::text[]) AS u(t)
LEFT JOIN LATERAL (SELECT trace_id, first_ts, first_event_id, agent_name, tool_calls, cost_nano, last_end, workflow
  FROM runs WHERE project_id = $1 AND trace_id = u.t LIMIT 1) r ON true
LEFT JOIN LATERAL (SELECT first_ts, first_event_id, first_agent, tool_calls, cost_nano, last_end, has_workflow
  FROM runs_pending WHERE project_id = $1 AND trace_id = u.t AND calls > 0 LIMIT 1) m ON true
WHERE r.workflow IS NOT NULL OR m.has_workflow`

// RunTotals reads the stored totals of the runs traceIDs (distinct), by agent.
func (w *WriteTx) RunTotals(ctx context.Context, projectID string, traceIDs []string) (map[string][]guardrail.Run, error) {
	rows, err := w.tx.Query(ctx, runTotalsSQL, projectID, traceIDs)
	if err != nil {
		return nil, err
	}
	return scanRunTotals(rows)
}

func scanRunTotals(rows pgx.Rows) (map[string][]guardrail.Run, error) {
	out := map[string][]guardrail.Run{}
	var agent string
	var r guardrail.Run
	_, err := pgx.ForEachRow(rows, []any{&agent, &r.TraceID, &r.ToolCalls, &r.CostNano, &r.LastSeen}, func() error {
		out[agent] = append(out[agent], r)
		return nil
	})
	return out, err
}
