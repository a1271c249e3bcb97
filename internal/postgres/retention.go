package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Retention is a project's retention of raw calls and rollups
// (docs/scale.md, "Retention").
type Retention struct {
	// RawDays and RollupDays are the project's own settings; nil takes
	// the deployment's.
	RawDays, RollupDays *int
	// DefaultRawDays and DefaultRollupDays are the deployment's; 0 keeps
	// forever.
	DefaultRawDays, DefaultRollupDays int
	// droppedBefore is how far the retention job dropped partitions;
	// rollupsGone how far it deleted the project's rollups.
	droppedBefore, rollupsGone *time.Time
}

// MinRollupDays is the shortest rollup retention the expiry applies,
// whatever a project sets: the forecast reads the month to date and the
// 28 complete days before today, the anomaly alerts 29 days, all from
// the daily rollups, and the month's budget counter must stay.
const MinRollupDays = 31

// EffectiveRawDays is the raw retention in force; 0 keeps forever.
func (r Retention) EffectiveRawDays() int {
	if r.RawDays != nil {
		return *r.RawDays
	}
	return r.DefaultRawDays
}

// EffectiveRollupDays is the rollup retention in force; 0 keeps forever.
func (r Retention) EffectiveRollupDays() int {
	if r.RollupDays != nil {
		return *r.RollupDays
	}
	return r.DefaultRollupDays
}

// RawExpiredBefore is the instant before which the project's raw calls
// have expired at now (nil: none has): its retention's cutoff, or the
// partitions already dropped, whichever is later. The calls' reads hide
// what lies before it, so a project shorter than the deployment's
// maximum sees the same as if its calls were gone.
func (r Retention) RawExpiredBefore(now time.Time) *time.Time {
	var out *time.Time
	if d := r.EffectiveRawDays(); d > 0 {
		t := now.Add(-time.Duration(d) * 24 * time.Hour).UTC()
		out = &t
	}
	if r.droppedBefore != nil && (out == nil || r.droppedBefore.After(*out)) {
		t := r.droppedBefore.UTC()
		out = &t
	}
	return out
}

// RollupExpiredBefore is the UTC midnight before which the project's
// rollups, run totals and month counters have expired at now (nil: none
// has): now minus the longest of its rollup retention, its raw retention
// and MinRollupDays, rounded down to the day, or how far the expiry has
// deleted them, whichever is later. Rollups outlive the calls they sum:
// a raw retention kept forever keeps them forever too, whatever the
// rollup setting says, so a report never reads a range whose calls are
// still stored but whose rollups are gone.
func (r Retention) RollupExpiredBefore(now time.Time) *time.Time {
	var out *time.Time
	if d, raw := r.EffectiveRollupDays(), r.EffectiveRawDays(); d > 0 && raw > 0 {
		t := now.UTC().AddDate(0, 0, -max(d, raw, MinRollupDays)).Truncate(24 * time.Hour)
		out = &t
	}
	if r.rollupsGone != nil && (out == nil || r.rollupsGone.After(*out)) {
		t := r.rollupsGone.UTC()
		out = &t
	}
	return out
}

// Retention reads a project's retention.
func (db *DB) Retention(ctx context.Context, projectID string) (Retention, error) {
	r := Retention{DefaultRawDays: db.RawRetentionDays, DefaultRollupDays: db.RollupRetentionDays}
	err := db.Pool.QueryRow(ctx, `SELECT raw_retention_days, rollup_retention_days, (SELECT dropped_before FROM raw_expiry),
  rollup_expired_before
FROM projects WHERE id = $1 AND deleted_at IS NULL`, projectID).Scan(&r.RawDays, &r.RollupDays, &r.droppedBefore, &r.rollupsGone)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, apierr.New(apierr.NotFound, "project not found")
	}
	return r, translate(err, "projects")
}

// PutRetention replaces a project's retention settings (nil: the
// deployment's). The caller has checked the bounds (a day to ten years),
// which the table's CHECK holds too.
func (db *DB) PutRetention(ctx context.Context, projectID string, rawDays, rollupDays *int) error {
	tag, err := db.Pool.Exec(ctx, `UPDATE projects SET raw_retention_days = $2, rollup_retention_days = $3, updated_at = now()
WHERE id = $1 AND deleted_at IS NULL`, projectID, rawDays, rollupDays)
	if err != nil {
		return translate(err, "projects")
	}
	if tag.RowsAffected() == 0 {
		return apierr.New(apierr.NotFound, "project not found")
	}
	return nil
}

// Expired is what one retention run dropped.
type Expired struct {
	// Partitions are the dropped partitions' names.
	Partitions []string
	// Before is the deployment's cutoff (zero: raw calls are kept).
	Before time.Time
}

// rawKeepDaysSQL answers whether a live project keeps its calls for the
// deployment's time, and the longest of the projects' own settings.
const rawKeepDaysSQL = `SELECT coalesce(bool_or(raw_retention_days IS NULL), true), coalesce(max(raw_retention_days), 0)
FROM projects WHERE deleted_at IS NULL`

// ExpireRawCalls drops every partition of events whose calls have all
// expired for every project: those that end before now minus the longest
// retention in force (a project's own or the deployment's), each dropped
// whole in a short transaction that waits at most partitionLockTimeout for
// the table's lock. DEFAULT is never dropped (EnsureEventPartitions moves
// its calls to their months first). Keeping forever anywhere drops nothing.
func (db *DB) ExpireRawCalls(ctx context.Context, now time.Time) (Expired, error) {
	var anyDefault bool
	var longest int
	if err := db.mergePool().QueryRow(ctx, rawKeepDaysSQL).Scan(&anyDefault, &longest); err != nil {
		return Expired{}, translate(err, "projects")
	}
	days := longest
	if anyDefault {
		if db.RawRetentionDays == 0 {
			return Expired{}, nil
		}
		days = max(days, db.RawRetentionDays)
	}
	if days == 0 {
		return Expired{}, nil
	}
	out := Expired{Before: now.Add(-time.Duration(days) * 24 * time.Hour).UTC()}
	parts, err := db.EventPartitions(ctx)
	if err != nil {
		return out, err
	}
	for _, p := range parts {
		if p.To.IsZero() || p.To.After(out.Before) {
			continue
		}
		err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, partitionLockTimeout); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DROP TABLE `+pgx.Identifier{p.Name}.Sanitize()); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE raw_expiry SET dropped_before = greatest(dropped_before, $1)`, p.To)
			return err
		})
		if err != nil {
			return out, translate(err, "events")
		}
		out.Partitions = append(out.Partitions, p.Name)
	}
	return out, nil
}
