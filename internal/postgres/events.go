package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/semconv"
)

// WriteResult is what one write stored.
type WriteResult struct {
	Stored, Duplicate, Outcomes int64
	// Marked counts the runs the write marked for the run merger.
	Marked int64
}

// insertSQL writes events and outcomes in ONE statement, adds the stored
// calls' metered spend to the month counters (spend_month) and their
// weights to their projects' totals (project_totals, which refuses a batch
// that would take them past their bound: totals.go), marks the runs its stored calls and
// recorded outcomes touch as pending (runs_pending, refreshed later by the
// run merger or the next run report: runs_pending.go), and returns the
// projects' policy versions: all land or none does, and a duplicate
// (skipped by ON CONFLICT, so absent from ev) marks no run. Events are
// inserted in event_id order so overlapping concurrent batches take row
// locks in the same order and cannot deadlock. Rollups are not touched
// here: each row records its transaction (events.tx) and the merger folds
// it in later, while reports read it from the tail until then (merge.go).
// The parameters are named: each events column (columnArgs), then the
// outcomes' arrays.
var insertSQL = func() string {
	return `WITH ev AS (
  ` + unnestInsert() + `
  RETURNING project_id, trace_id, event_id, ts, agent_name, model, tool_name, workflow, latency_ms, billing, cost_nano,
    ` + callMoney + ` AS money, ` + callTokens + ` AS tokens
), oc AS (
  INSERT INTO outcomes (project_id, trace_id, success, label, recorded_at)
  SELECT p, t, s, NULLIF(l, ''), now()
  FROM unnest(@outcome_project_id::uuid[], @outcome_trace_id::text[], @outcome_success::bool[], @outcome_label::text[]) AS o(p, t, s, l)
  ORDER BY p, t
  ON CONFLICT (project_id, trace_id) DO UPDATE
    SET success = excluded.success, label = excluded.label, recorded_at = excluded.recorded_at
  RETURNING project_id, trace_id
)` + spendUpsert + totalsUpsert + pendingUpsert + batchLog + `
SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM oc), (SELECT count(*) FROM rp),
    coalesce((SELECT array_agg(sp.project_id::text ORDER BY sp.project_id, sp.month) FROM sp), '{}'),
    coalesce((SELECT array_agg(sp.month ORDER BY sp.project_id, sp.month) FROM sp), '{}'),
    coalesce((SELECT array_agg(sp.metered_nano ORDER BY sp.project_id, sp.month) FROM sp), '{}'),
    coalesce((SELECT array_agg(sd.delta ORDER BY sd.project_id, sd.month) FROM sd), '{}'),
    ` + policyVersionsOf
}()

// Write stores events (deduplicated by project and event_id) and outcomes (a
// later outcome for a trace replaces the earlier one). Duplicates within the
// slice keep the first copy; duplicates = received − inserted.
func (db *DB) Write(ctx context.Context, events []event.Event, outcomes []semconv.Outcome) (WriteResult, error) {
	return db.WriteWith(ctx, db.Hook, events, outcomes)
}

// WriteWith is Write with hook (nil: none) in place of db.Hook; tests run
// two hooks, as two instances would, over one database.
func (db *DB) WriteWith(ctx context.Context, hook WriteHook, events []event.Event, outcomes []semconv.Outcome) (WriteResult, error) {
	received := int64(len(events))
	events = dedupeEvents(events)
	outcomes = lastOutcomes(outcomes)
	db.ensureIngestMonths(ctx, time.Now(), events)
	op, ot, os, ol := make([]string, len(outcomes)), make([]string, len(outcomes)), make([]bool, len(outcomes)), make([]string, len(outcomes))
	for i, o := range outcomes {
		op[i], ot[i], os[i], ol[i] = o.ProjectID, o.TraceID, o.Success, o.Label
	}
	args := columnArgs(events)
	args["outcome_project_id"], args["outcome_trace_id"], args["outcome_success"], args["outcome_label"] = op, ot, os, ol
	lockProjects, lockIDs := replayLockKeys(events)
	var wants []RunTotalsRequest
	if w, ok := hook.(RunTotalsWanter); ok {
		wants = w.WantRunTotals(events)
	}
	var res WriteResult
	var sp spendArrays
	err := db.ingestTx(ctx, func(conn *pgxpool.Conn) (*WriteTx, error) {
		res, sp = WriteResult{}, spendArrays{} // an attempt after a stale routing starts afresh
		var versions []string
		pre, err := insert(ctx, conn, args, replayLocks{lockProjects, lockIDs}, wants, hook != nil, &res, &sp, &versions)
		if err != nil || hook == nil || res.Stored == 0 {
			return nil, err
		}
		w := &WriteTx{tx: conn, db: db}
		return w, hook.AfterWrite(ctx, w, Written{Events: events, Spend: sp.changes(), Versions: parseVersions(versions), RunTotals: pre})
	})
	if err != nil {
		return WriteResult{}, translate(err, "events")
	}
	res.Duplicate = received - res.Stored
	if db.budgets != nil {
		db.budgets.wrote(sp.changes())
	}
	db.tellStored(events, res.Stored, res.Marked)
	return res, nil
}

// tellStored tells OnStored what a write stored and marked, per project:
// the counts for a batch of one project, at most each project's calls for
// a mixed one (events are sorted by project).
func (db *DB) tellStored(events []event.Event, stored, marked int64) {
	if db.OnStored == nil || len(events) == 0 || stored+marked == 0 {
		return
	}
	if events[0].ProjectID == events[len(events)-1].ProjectID {
		db.OnStored(events[0].ProjectID, stored, marked)
		return
	}
	for i := 0; i < len(events); {
		j := i
		for j < len(events) && events[j].ProjectID == events[i].ProjectID {
			j++
		}
		db.OnStored(events[i].ProjectID, int64(j-i), int64(j-i))
		i = j
	}
}

// replayLocks are the (project, event_id) pairs replayLockSQL locks.
type replayLocks struct{ projects, ids []string }

// insert opens the ingest transaction, takes the replay locks (if any:
// partitions.go), and runs the insert statement and,
// in the same round trip, the run totals statements the hook asked for
// (each reads in a snapshot taken after the insert, so the totals include
// the batch) and, for a hook, the savepoint its deferred statements roll
// back to (ingest_tx.go).
func insert(ctx context.Context, conn *pgxpool.Conn, args pgx.StrictNamedArgs, locks replayLocks, wants []RunTotalsRequest, hooked bool,
	res *WriteResult, sp *spendArrays, versions *[]string) (map[string]PrefetchedTotals, error) {
	b := &pgx.Batch{}
	b.Queue(beginSQL)
	if len(locks.ids) > 0 {
		b.Queue(replayLockSQL, locks.projects, locks.ids)
	}
	b.Queue(insertSQL, args)
	for _, w := range wants {
		b.Queue(runTotalsSQL, w.ProjectID, w.TraceIDs)
	}
	if hooked {
		b.Queue(savepointSQL)
	}
	br := conn.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil && len(locks.ids) > 0 {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&res.Stored, &res.Outcomes, &res.Marked, &sp.projects, &sp.months, &sp.after, &sp.delta, versions)
	}
	var pre map[string]PrefetchedTotals
	for _, w := range wants {
		if err != nil {
			break
		}
		var rows pgx.Rows
		if rows, err = br.Query(); err != nil {
			break
		}
		var byAgent map[string][]guardrail.Run
		if byAgent, err = scanRunTotals(rows); err == nil {
			if pre == nil {
				pre = map[string]PrefetchedTotals{}
			}
			pre[w.ProjectID] = PrefetchedTotals{Version: w.Version, ByAgent: byAgent}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return pre, err
}

// dedupeEvents sorts by (project, event_id) and keeps the first copy of each
// key in request order, so the winner of an in-batch duplicate is explicit.
func dedupeEvents(events []event.Event) []event.Event {
	sorted := slices.Clone(events)
	slices.SortStableFunc(sorted, func(a, b event.Event) int {
		if c := strings.Compare(a.ProjectID, b.ProjectID); c != 0 {
			return c
		}
		return strings.Compare(a.EventID, b.EventID)
	})
	return slices.CompactFunc(sorted, func(a, b event.Event) bool {
		return a.ProjectID == b.ProjectID && a.EventID == b.EventID
	})
}

// lastOutcomes keeps the last outcome of each trace: a later one replaces the
// earlier, and one statement cannot update the same row twice.
func lastOutcomes(outcomes []semconv.Outcome) []semconv.Outcome {
	seen := make(map[[2]string]int, len(outcomes))
	out := make([]semconv.Outcome, 0, len(outcomes))
	for _, o := range outcomes {
		k := [2]string{o.ProjectID, o.TraceID}
		if i, ok := seen[k]; ok {
			out[i] = o
			continue
		}
		seen[k] = len(out)
		out = append(out, o)
	}
	return out
}
