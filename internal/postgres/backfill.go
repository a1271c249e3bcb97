package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// backfillChunk is how many events one backfill step reads and updates.
const backfillChunk = 5000

// savingsSQL sets the cache savings of events and applies the difference
// to the rollups of those already merged (tx below @watermark), like repriceSQL.
var savingsSQL = `WITH ` + tagKeys + `, u AS (
  SELECT * FROM unnest(@project_id::uuid[], @event_id::text[], @read_savings_nano::bigint[], @write_premium_nano::bigint[])
    AS u(p, e, rs, wp)
), old AS (
  SELECT ev.*, u.rs, u.wp, ` + tagsOf("ev", tagCovered) + ` AS tags
  FROM events ev JOIN u ON ev.project_id = u.p AND ev.event_id = u.e LEFT JOIN pt p ON p.project_id = ev.project_id
), upd AS (
  UPDATE events ev SET read_savings_nano = u.rs, write_premium_nano = u.wp
  FROM u WHERE ev.project_id = u.p AND ev.event_id = u.e
  RETURNING 1
), src AS (
  SELECT project_id, ts, agent_name, model, billing, user_id, session_id, workflow, tool_name,
    0::bigint AS calls, 0::bigint AS input_tokens, 0::bigint AS output_tokens, 0::bigint AS cached_tokens,
    0::bigint AS cache_write_tokens, 0::bigint AS total_tokens, 0::bigint AS cost_nano,
    0::bigint AS subscription_nano, 0::bigint AS latency_sum, 0::bigint AS latency_count,
    0::bigint AS success_calls, 0::bigint AS unpriced_calls, rs - read_savings_nano AS read_savings_nano,
    wp - write_premium_nano AS write_premium_nano, 0::bigint AS events_with_cache,
    0::bigint AS failed_cost_nano, 0::bigint AS traced_calls, 0::bigint AS output_over_16_calls,
    0::bigint AS output_over_256_calls, tags
  FROM old WHERE tx < @watermark
)` + rollupUpsert() + tagUpsert(false) + `
SELECT (SELECT count(*) FROM upd)`

// backfillSelect reads the next chunk of events the savings backfill
// computes.
var backfillSelect = mustQuery("savings_backfill_events.sql")

// BackfillSavings computes the cache savings of the events a database held
// when migration 0005 added the savings columns, each with the rates of
// the catalogue version that priced it (events.price_version), and brings
// the rollups along. It runs once (a pending_backfills row says it is due)
// in chunks, each its own transaction; a step interrupted by a restart is
// simply done again. It returns how many events it changed.
func (db *DB) BackfillSavings(ctx context.Context) (int64, error) {
	var due bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pending_backfills WHERE name = 'cache_savings')`).
		Scan(&due); err != nil || !due {
		return 0, translate(err, "backfill")
	}
	cats := map[string]*pricing.Catalogue{}
	lastP, lastE := "00000000-0000-0000-0000-000000000000", ""
	var changed int64
	for {
		n, more, err := db.backfillStep(ctx, cats, &lastP, &lastE)
		changed += n
		if err != nil {
			return changed, translate(err, "backfill")
		}
		if !more {
			break
		}
	}
	_, err := db.Pool.Exec(ctx, `DELETE FROM pending_backfills WHERE name = 'cache_savings'`)
	return changed, translate(err, "backfill")
}

func (db *DB) backfillStep(ctx context.Context, cats map[string]*pricing.Catalogue, lastP, lastE *string) (int64, bool, error) {
	rows, err := db.Pool.Query(ctx, backfillSelect, pgx.StrictNamedArgs{"after_project_id": *lastP, "after_event_id": *lastE,
		"limit": backfillChunk})
	if err != nil {
		return 0, false, err
	}
	type row struct {
		p, e, model, version string
		u                    pricing.Usage
		read, premium        int64
		ts                   time.Time
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.p, &x.e, &x.model, &x.version, &x.u.Input, &x.u.Output, &x.u.Cached, &x.u.CacheWrite,
			&x.u.CacheWrite1h, &x.read, &x.premium, &x.ts)
		return x, err
	})
	if err != nil || len(all) == 0 {
		return 0, false, err
	}
	*lastP, *lastE = all[len(all)-1].p, all[len(all)-1].e
	var p, e []string
	var rs, wp []int64
	for _, x := range all {
		cat, err := db.versionCatalogue(ctx, cats, x.version)
		if err != nil {
			return 0, false, err
		}
		entry, ok := cat.Lookup(x.model)
		if !ok {
			continue
		}
		entry, _ = entry.At(x.ts) // the rates in force at the call, as for its cost
		sv := entry.Savings(x.u)
		if sv.Read != x.read || sv.WritePremium != x.premium {
			p, e, rs, wp = append(p, x.p), append(e, x.e), append(rs, sv.Read), append(wp, sv.WritePremium)
		}
	}
	if len(p) > 0 {
		// Events deleted meanwhile are simply not updated: count what was.
		// The merger's lock keeps the watermark still while the deltas apply.
		var n int64
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			var watermark int64
			if err := tx.QueryRow(ctx, lockState).Scan(&watermark); err != nil {
				return err
			}
			return tx.QueryRow(ctx, savingsSQL, pgx.StrictNamedArgs{"project_id": p, "event_id": e, "read_savings_nano": rs,
				"write_premium_nano": wp, "watermark": watermark}).Scan(&n)
		})
		if err != nil {
			return 0, false, err
		}
		return n, len(all) == backfillChunk, nil
	}
	return int64(len(p)), len(all) == backfillChunk, nil
}

// versionCatalogue loads a catalogue version once per backfill; a version
// that was never recorded (events stamped before versions were kept)
// prices with the built-in catalogue.
func (db *DB) versionCatalogue(ctx context.Context, cats map[string]*pricing.Catalogue, version string) (*pricing.Catalogue, error) {
	if c, ok := cats[version]; ok {
		return c, nil
	}
	c, _, err := db.CatalogueVersion(ctx, version)
	if err != nil {
		if !isNotFound(err) {
			return nil, err
		}
		c = pricing.Builtin()
	}
	cats[version] = c
	return c, nil
}

func isNotFound(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Code == apierr.NotFound
}
