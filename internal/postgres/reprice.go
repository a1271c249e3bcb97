package postgres

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// RepriceFilter selects the events a re-pricing considers.
type RepriceFilter struct {
	Start, End time.Time // events with Start ≤ ts < End
	ProjectID  string    // empty: every project
	// Models, when set, keeps events whose stored model name, or the
	// catalogue entry it resolves to, is one of these (case-insensitive;
	// each is itself resolved, so "anthropic/claude-sonnet-4-5" selects
	// every name that prices as claude-sonnet-4-5).
	Models []string
}

// RepriceChange is one model's share of a re-pricing, by stored model name.
type RepriceChange struct {
	Model              string
	Events             int64
	OldTotal, NewTotal int64 // nano-USD, the billed cost
}

// RepriceResult reports the events whose price changes: their number and
// billed totals before and after, per model sorted by name.
type RepriceResult struct {
	Events             int64
	OldTotal, NewTotal int64
	Changes            []RepriceChange
	// Refused counts the events left as they were because their new price
	// or cache savings would pass the per-call bounds (pricing.Bounds):
	// a price is exact or not applied, never clamped.
	Refused int64
	// PriceVersion is the catalogue version stamped on changed events.
	PriceVersion string
}

// repriceTimeout bounds one re-pricing; the pool's 60 s statement timeout
// is for requests, and a long range may take longer to scan.
const repriceTimeout = "15min"

// updateChunk is how many rows one UPDATE statement changes.
const updateChunk = 5000

// repriceLockID is the advisory lock that serialises real re-pricing runs.
const repriceLockID = 7431082202

type repriced struct {
	project, id   string
	cost, cat     int64
	read, premium int64  // cache savings at the new rates
	period        string // the rate period in force at the event's timestamp
}

// repriceSelect reads the events a re-pricing prices again.
var repriceSelect = mustQuery("reprice_events.sql")

// Reprice prices the selected events with cat and reports those whose
// billed cost, catalogue cost or priced flag would change, including events
// stored unpriced whose model cat now knows. A dry run changes nothing.
// Otherwise exactly the reported events get the new cost, catalogue cost,
// priced and price_version, in one transaction. A client-sent cost is never
// overwritten; only its catalogue cost is refreshed. An event whose model
// cat does not know is left as it is.
//
// Nothing but a re-pricing updates stored events, so real runs serialise on
// an advisory lock instead of locking every row they read (FOR UPDATE would
// write to each row of a large range).
func (db *DB) Reprice(ctx context.Context, cat *pricing.Catalogue, f RepriceFilter, dryRun bool) (RepriceResult, error) {
	res := RepriceResult{PriceVersion: cat.Version()}
	opts := pgx.TxOptions{}
	if dryRun {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	match := modelMatcher(cat, f.Models)
	err := pgx.BeginTxFunc(ctx, db.Pool, opts, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '"+repriceTimeout+"'"); err != nil {
			return err
		}
		if !dryRun {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, repriceLockID); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, repriceSelect, pgx.StrictNamedArgs{"start": f.Start, "end": f.End, "project_id": f.ProjectID})
		if err != nil {
			return err
		}
		byModel := map[string]*RepriceChange{}
		var changed []repriced
		for rows.Next() {
			var r repriced
			var model string
			var u pricing.Usage
			var cost, catCost, read, premium int64
			var provided, priced bool
			var at time.Time
			var period string
			if err := rows.Scan(&r.project, &r.id, &model, &u.Input, &u.Output, &u.Cached, &u.CacheWrite,
				&u.CacheWrite1h, &cost, &provided, &catCost, &priced, &read, &premium, &at, &period); err != nil {
				rows.Close()
				return err
			}
			entry, known := cat.Lookup(model)
			if !match(model, entry.Model, known) || !known {
				continue
			}
			// The rates in force when the call was made, not today's.
			entry, r.period = entry.At(at)
			b, sv := entry.Price(u), entry.Savings(u)
			if b.Check() != nil || sv.Check() != nil {
				res.Refused++
				continue
			}
			r.cat, r.cost = b.Total, cost
			if !provided {
				r.cost = b.Total
			}
			r.read, r.premium = sv.Read, sv.WritePremium
			if priced && r.cat == catCost && r.cost == cost && r.read == read && r.premium == premium && r.period == period {
				continue
			}
			changed = append(changed, r)
			c := byModel[model]
			if c == nil {
				c = &RepriceChange{Model: model}
				byModel[model] = c
			}
			c.Events++
			if c.OldTotal, err = addNano(c.OldTotal, cost, nil); err == nil {
				c.NewTotal, err = addNano(c.NewTotal, r.cost, nil)
			}
			if err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range byModel {
			res.Changes = append(res.Changes, *c)
			res.Events += c.Events
			res.OldTotal, err = addNano(res.OldTotal, c.OldTotal, err)
			res.NewTotal, err = addNano(res.NewTotal, c.NewTotal, err)
		}
		if err != nil {
			return err
		}
		sort.Slice(res.Changes, func(i, j int) bool { return res.Changes[i].Model < res.Changes[j].Model })
		if dryRun {
			return nil
		}
		return applyReprice(ctx, tx, changed, cat.Version())
	})
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return RepriceResult{}, ae
		}
		return RepriceResult{}, translate(err, "events")
	}
	if !dryRun {
		db.dropBudgets() // the month counters were recomputed
	}
	return res, nil
}

// repriceSQL updates the changed events, moves their projects' money
// totals by the change of each call's weight (project_totals_bound refuses
// a re-pricing that would pass the bound: totals.go) and applies the
// difference to the rollups of those already merged (tx below the watermark @watermark, read under
// the merger's lock) in the same statement: old reads the rows as they were
// (every CTE sees the statement's snapshot), src turns old → new into delta
// contributions (no calls or tokens, only cost, unpriced and savings move).
// Events in the tail need no delta: the merger will read their new values.
var repriceSQL = `WITH ` + tagKeys + `, u AS (
  SELECT * FROM unnest(@project_id::uuid[], @event_id::text[], @cost_nano::bigint[], @catalogue_cost_nano::bigint[],
    @read_savings_nano::bigint[], @write_premium_nano::bigint[], @price_period::text[])
    AS u(p, e, c, cc, rs, wp, pp)
), old AS (
  SELECT ev.*, u.c, u.cc, u.rs, u.wp, ` + tagsOf("ev", tagCovered) + ` AS tags
  FROM events ev JOIN u ON ev.project_id = u.p AND ev.event_id = u.e LEFT JOIN pt p ON p.project_id = ev.project_id
), ptd AS (
  UPDATE project_totals t SET money_nano = t.money_nano + d.delta
  FROM (SELECT project_id, sum(greatest(c, cc, rs, wp) - ` + callMoney + `) AS delta FROM old GROUP BY 1) d
  WHERE t.project_id = d.project_id
), upd AS (
  UPDATE events ev SET cost_nano = u.c, catalogue_cost_nano = u.cc, priced = true, price_version = @price_version,
    price_period = u.pp, read_savings_nano = u.rs, write_premium_nano = u.wp
  FROM u WHERE ev.project_id = u.p AND ev.event_id = u.e
  RETURNING ev.project_id, ev.trace_id
), src AS (
  SELECT project_id, ts, agent_name, model, billing, user_id, session_id, workflow, tool_name,
    0::bigint AS calls, 0::bigint AS input_tokens, 0::bigint AS output_tokens, 0::bigint AS cached_tokens,
    0::bigint AS cache_write_tokens, 0::bigint AS total_tokens, c - cost_nano AS cost_nano,
    CASE WHEN billing = 'subscription' THEN c - cost_nano ELSE 0 END AS subscription_nano,
    0::bigint AS latency_sum, 0::bigint AS latency_count, 0::bigint AS success_calls,
    -(NOT priced)::int::bigint AS unpriced_calls, rs - read_savings_nano AS read_savings_nano,
    wp - write_premium_nano AS write_premium_nano, 0::bigint AS events_with_cache,
    CASE WHEN success THEN 0 ELSE c - cost_nano END AS failed_cost_nano, 0::bigint AS traced_calls,
    0::bigint AS output_over_16_calls, 0::bigint AS output_over_256_calls, tags
  FROM old WHERE tx < @watermark
)` + rollupUpsert() + tagUpsert(false) + `
SELECT (SELECT count(*) FROM upd), ` + runKeysOf("upd")

// applyReprice updates the changed events and their rollups chunk by
// chunk, then refreshes the runs they belong to.
func applyReprice(ctx context.Context, tx pgx.Tx, changed []repriced, version string) error {
	if len(changed) == 0 {
		return nil
	}
	// The merger waits until this transaction ends, so the watermark stays
	// put while deltas are applied below it.
	var watermark int64
	if err := tx.QueryRow(ctx, lockState).Scan(&watermark); err != nil {
		return err
	}
	var runKeys []RunKey
	for start := 0; start < len(changed); start += updateChunk {
		chunk := changed[start:min(start+updateChunk, len(changed))]
		p, e := make([]string, len(chunk)), make([]string, len(chunk))
		c, cc := make([]int64, len(chunk)), make([]int64, len(chunk))
		rs, wp := make([]int64, len(chunk)), make([]int64, len(chunk))
		pp := make([]string, len(chunk))
		for i, r := range chunk {
			p[i], e[i], c[i], cc[i], rs[i], wp[i], pp[i] = r.project, r.id, r.cost, r.cat, r.read, r.premium, r.period
		}
		var updated int64
		var touched []string
		if err := tx.QueryRow(ctx, repriceSQL, pgx.StrictNamedArgs{"project_id": p, "event_id": e, "cost_nano": c,
			"catalogue_cost_nano": cc, "read_savings_nano": rs, "write_premium_nano": wp, "price_period": pp,
			"price_version": version, "watermark": watermark}).Scan(&updated, &touched); err != nil {
			return err
		}
		if updated != int64(len(chunk)) {
			// Events deleted meanwhile (a project removed): roll back rather
			// than report what was not done.
			return apierr.Unavailablef(nil, "events changed during the re-pricing (%d of %d found); nothing was changed, run it again",
				updated, len(chunk))
		}
		runKeys = append(runKeys, parseRunKeys(touched)...)
	}
	runKeys = sortKeys(runKeys)
	for start := 0; start < len(runKeys); start += rebuildChunk {
		if err := RefreshRuns(ctx, tx, runKeys[start:min(start+rebuildChunk, len(runKeys))]); err != nil {
			return err
		}
	}
	return nil
}

// modelMatcher returns the filter of RepriceFilter.Models.
func modelMatcher(cat *pricing.Catalogue, models []string) func(raw, resolved string, known bool) bool {
	if len(models) == 0 {
		return func(string, string, bool) bool { return true }
	}
	names := map[string]bool{}
	for _, m := range models {
		names[strings.ToLower(strings.TrimSpace(m))] = true
		if e, ok := cat.Lookup(m); ok {
			names[e.Model] = true
		}
	}
	return func(raw, resolved string, known bool) bool {
		return names[strings.ToLower(strings.TrimSpace(raw))] || (known && names[resolved])
	}
}

// addNano adds two nano-USD amounts, or fails when the sum would pass
// int64 (a re-pricing of every project can add more than one project
// holds): the totals are exact or the re-pricing is refused. A previous
// err is passed through.
func addNano(a, b int64, err error) (int64, error) {
	if err != nil {
		return a, err
	}
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return a, apierr.New(apierr.ValidationFailed, "the re-pricing's totals do not fit a 64-bit nano-USD amount").
			WithHint("re-price one project (project_id) or a shorter range at a time")
	}
	return a + b, nil
}
