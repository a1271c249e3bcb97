package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/semconv"
)

// WriteResult is what one write stored.
type WriteResult struct {
	Stored, Duplicate, Outcomes int64
}

// insertSQL writes events and outcomes in ONE statement, so one request is one
// round trip and one implicit transaction: both land or neither does. Events
// are inserted in event_id order so overlapping concurrent batches take row
// locks in the same order and cannot deadlock.
const insertSQL = `
WITH ev AS (
  INSERT INTO events (project_id, event_id, ts, agent_name, model, input_tokens, output_tokens,
    cached_tokens, cache_write_tokens, total_tokens, reasoning_tokens, cost_nano, cost_provided,
    catalogue_cost_nano, priced, price_version, latency_ms, success, error, streaming, trace_id,
    span_id, parent_span_id, workflow, step_name, tool_name, user_id, session_id, billing, source, metadata,
    cache_write_1h_tokens)
  SELECT p, e, ts, a, m, it, ot, ct, cwt, tt, rt, c, cp, NULLIF(cc, -1), pr, pv, NULLIF(l, -1), s,
    NULLIF(er, ''), st, NULLIF(tr, ''), NULLIF(sp, ''), NULLIF(ps, ''), NULLIF(wf, ''), NULLIF(sn, ''),
    NULLIF(tn, ''), NULLIF(u, ''), NULLIF(se, ''), b, src, NULLIF(md, '')::jsonb, cw1
  FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
    $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bool[], $14::bigint[],
    $15::bool[], $16::text[], $17::bigint[], $18::bool[], $19::text[], $20::bool[], $21::text[], $22::text[],
    $23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[],
    $36::bigint[])
    AS t(p, e, ts, a, m, it, ot, ct, cwt, tt, rt, c, cp, cc, pr, pv, l, s, er, st, tr, sp, ps, wf, sn, tn, u, se, b, src, md, cw1)
  ORDER BY p, e
  ON CONFLICT (project_id, event_id) DO NOTHING
  RETURNING 1
), oc AS (
  INSERT INTO outcomes (project_id, trace_id, success, label, recorded_at)
  SELECT p, t, s, NULLIF(l, ''), now()
  FROM unnest($32::uuid[], $33::text[], $34::bool[], $35::text[]) AS o(p, t, s, l)
  ORDER BY p, t
  ON CONFLICT (project_id, trace_id) DO UPDATE
    SET success = excluded.success, label = excluded.label, recorded_at = excluded.recorded_at
  RETURNING 1
)
SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM oc)`

// Write stores events (deduplicated by project and event_id) and outcomes (a
// later outcome for a trace replaces the earlier one). Duplicates within the
// slice keep the first copy; duplicates = received − inserted.
func (db *DB) Write(ctx context.Context, events []event.Event, outcomes []semconv.Outcome) (WriteResult, error) {
	received := int64(len(events))
	events = dedupeEvents(events)
	outcomes = lastOutcomes(outcomes)
	cols := newEventColumns(len(events))
	for i := range events {
		cols.add(&events[i])
	}
	op, ot, os, ol := make([]string, len(outcomes)), make([]string, len(outcomes)), make([]bool, len(outcomes)), make([]string, len(outcomes))
	for i, o := range outcomes {
		op[i], ot[i], os[i], ol[i] = o.ProjectID, o.TraceID, o.Success, o.Label
	}
	args := append(cols.args(), op, ot, os, ol, cols.cw1)
	var stored, recorded int64
	if err := db.Pool.QueryRow(ctx, insertSQL, args...).Scan(&stored, &recorded); err != nil {
		return WriteResult{}, translate(err, "events")
	}
	return WriteResult{Stored: stored, Duplicate: received - stored, Outcomes: recorded}, nil
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

type eventColumns struct {
	p, e, a, m, pv, er, tr, sp, ps, wf, sn, tn, u, se, b, src, md []string
	ts                                                            []time.Time
	it, ot, ct, cwt, cw1, tt, rt, c, cc, l                        []int64
	cp, pr, s                                                     []bool
	st                                                            []*bool // NULL: the producer did not say
}

func newEventColumns(n int) *eventColumns {
	s := func() []string { return make([]string, 0, n) }
	i := func() []int64 { return make([]int64, 0, n) }
	b := func() []bool { return make([]bool, 0, n) }
	return &eventColumns{
		p: s(), e: s(), a: s(), m: s(), pv: s(), er: s(), tr: s(), sp: s(), ps: s(), wf: s(), sn: s(),
		tn: s(), u: s(), se: s(), b: s(), src: s(), md: s(), ts: make([]time.Time, 0, n),
		it: i(), ot: i(), ct: i(), cwt: i(), cw1: i(), tt: i(), rt: i(), c: i(), cc: i(), l: i(),
		cp: b(), pr: b(), s: b(), st: make([]*bool, 0, n),
	}
}

func (c *eventColumns) add(ev *event.Event) {
	latency := int64(-1)
	if ev.LatencyMS != nil {
		latency = *ev.LatencyMS
	}
	catalogue := ev.CatalogueCostNano
	if !ev.Priced {
		catalogue = -1
	}
	c.p, c.e, c.ts = append(c.p, ev.ProjectID), append(c.e, ev.EventID), append(c.ts, ev.Timestamp)
	c.a, c.m = append(c.a, ev.AgentName), append(c.m, ev.Model)
	c.it, c.ot, c.ct = append(c.it, ev.InputTokens), append(c.ot, ev.OutputTokens), append(c.ct, ev.CachedTokens)
	c.cwt, c.tt, c.rt = append(c.cwt, ev.CacheWriteTokens), append(c.tt, ev.TotalTokens), append(c.rt, ev.ReasoningTokens)
	c.cw1 = append(c.cw1, ev.CacheWrite1hTokens)
	c.c, c.cp, c.cc = append(c.c, ev.CostNano), append(c.cp, ev.CostProvided), append(c.cc, catalogue)
	c.pr, c.pv, c.l = append(c.pr, ev.Priced), append(c.pv, ev.PriceVersion), append(c.l, latency)
	c.s, c.er, c.st = append(c.s, ev.Success), append(c.er, ev.Error), append(c.st, ev.Streaming)
	c.tr, c.sp, c.ps = append(c.tr, ev.TraceID), append(c.sp, ev.SpanID), append(c.ps, ev.ParentSpanID)
	c.wf, c.sn, c.tn = append(c.wf, ev.Workflow), append(c.sn, ev.StepName), append(c.tn, ev.ToolName)
	c.u, c.se, c.b = append(c.u, ev.UserID), append(c.se, ev.SessionID), append(c.b, billingOrAPI(ev.Billing))
	c.src, c.md = append(c.src, ev.Source), append(c.md, string(ev.Metadata))
}

func (c *eventColumns) args() []any {
	return []any{c.p, c.e, c.ts, c.a, c.m, c.it, c.ot, c.ct, c.cwt, c.tt, c.rt, c.c, c.cp, c.cc,
		c.pr, c.pv, c.l, c.s, c.er, c.st, c.tr, c.sp, c.ps, c.wf, c.sn, c.tn, c.u, c.se, c.b, c.src, c.md}
}

func billingOrAPI(b string) string {
	if b == "" {
		return event.BillingAPI
	}
	return b
}
