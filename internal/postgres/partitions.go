package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
)

// Raw calls are partitioned by UTC month of ts (migration 0037,
// docs/scale.md). Each month's primary key (project_id, event_id)
// deduplicates a replay that lands in the same month; a replay whose
// timestamp moved into a neighbouring month is caught by replayProbe when
// it moved by at most ReplayWindow. That is the whole guarantee
// (docs/api.md, "Idempotency").

// ReplayWindow is how far a replay's timestamp may move from the
// original's, across a month boundary, and still be a duplicate.
const ReplayWindow = 24 * time.Hour

// replayProbe is true for an unnest row (c0 project, c1 event_id, c2 ts)
// whose window of ReplayWindow either side crosses a month boundary and
// holds a stored copy of its event_id. Only those rows probe (about one in
// fifteen), and each probe (llmcost_replay_stored, migration 0037) reads
// the primary keys of the two or three partitions the window covers. It
// is an expression, not a NOT EXISTS the planner would turn into an
// anti-join over every partition.
const replayProbe = `(date_trunc('month', c2 - interval '24 hours', 'UTC') <> date_trunc('month', c2 + interval '24 hours', 'UTC')
    AND llmcost_replay_stored(c0, c1, c2))`

// replayLockSQL takes, before the insert statement, a transaction lock on
// each (project, event_id) whose window crosses a month boundary, in one
// global order (class 4244): two concurrent retries of one call with
// timestamps in different months would each miss the other's uncommitted
// row (no primary key spans both), so the second waits here and its
// insert, a later statement with a later snapshot, sees the first's. A
// retry within one month needs no lock: that month's primary key makes it
// wait.
const replayLockSQL = `SELECT count(pg_advisory_xact_lock(4244, h)) FROM (
  SELECT DISTINCT hashtext(p || '/' || e) AS h FROM unnest($1::text[], $2::text[]) AS u(p, e) ORDER BY 1) s`

// nearMonthBoundary says whether ts's replay window crosses a UTC month
// boundary, as replayProbe computes it.
func nearMonthBoundary(ts time.Time) bool {
	lo, hi := ts.Add(-ReplayWindow).UTC(), ts.Add(ReplayWindow).UTC()
	return lo.Year() != hi.Year() || lo.Month() != hi.Month()
}

// replayLockKeys are the (project, event_id) pairs replayLockSQL locks;
// none for most batches, which then send no lock statement.
func replayLockKeys(events []event.Event) (projects, ids []string) {
	for i := range events {
		if nearMonthBoundary(events[i].Timestamp) {
			projects, ids = append(projects, events[i].ProjectID), append(ids, events[i].EventID)
		}
	}
	return projects, ids
}

// monthStart is the first instant of t's UTC month.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// defaultMonthsSQL lists the months of the calls DEFAULT holds.
const defaultMonthsSQL = `SELECT DISTINCT date_trunc('month', ts, 'UTC') FROM events_default`

// DefaultHoldsCalls reports whether the DEFAULT partition holds any call:
// the partition job has months to create and calls to move.
func (db *DB) DefaultHoldsCalls(ctx context.Context) (bool, error) {
	var held bool
	err := db.mergePool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events_default)`).Scan(&held)
	return held, translate(err, "events")
}

// gapMonths is how far back from now the months between DEFAULT's oldest
// recent call and now are all created: a back-fill sent oldest day first
// then finds its later months ready instead of landing in DEFAULT again.
// Older held months are created one by one, so that one call from years
// ago does not add a partition per month since (every read without a time
// bound visits every partition).
const gapMonths = 12

// monthsToCreate are the months of now and the ahead months after it, the
// months DEFAULT holds calls of, and every month between the oldest of
// those within gapMonths and now.
func monthsToCreate(now time.Time, ahead int, held []time.Time) []time.Time {
	var months []time.Time
	cur := monthStart(now)
	for i := 0; i <= ahead; i++ {
		months = append(months, cur.AddDate(0, i, 0))
	}
	oldest := cur
	for _, m := range held {
		m = monthStart(m)
		months = append(months, m)
		if m.Before(oldest) && !m.Before(cur.AddDate(0, -gapMonths, 0)) {
			oldest = m
		}
	}
	for m := oldest; m.Before(cur); m = m.AddDate(0, 1, 0) {
		months = append(months, m)
	}
	slices.SortFunc(months, time.Time.Compare)
	return slices.CompactFunc(months, time.Time.Equal)
}

// partitionLockTimeout bounds how long the partition job waits for the
// locks it needs (EXCLUSIVE on DEFAULT while it moves rows, ACCESS
// EXCLUSIVE on the parent to drop a month), so that ingest queued behind
// it waits no longer; the next run tries again.
const partitionLockTimeout = "500ms"

// EnsureEventPartitions creates the partitions of now's month and the
// ahead months after it, and of every month DEFAULT holds calls of (with
// the months between a recent one and now: monthsToCreate), moving those
// calls into them, each month in its own short transaction.
// It returns how many partitions it created.
func (db *DB) EnsureEventPartitions(ctx context.Context, now time.Time, ahead int) (int, error) {
	rows, err := db.mergePool().Query(ctx, defaultMonthsSQL)
	if err != nil {
		return 0, translate(err, "events")
	}
	held, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return 0, translate(err, "events")
	}
	created := 0
	for _, m := range monthsToCreate(now, ahead, held) {
		var did bool
		err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, partitionLockTimeout); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `SELECT llmcost_events_partition($1)`, m).Scan(&did)
		})
		if err != nil {
			return created, translate(err, "events")
		}
		if did {
			created++
		}
	}
	return created, nil
}

// EventPartition is one partition of events and the range of ts it holds;
// From is zero for the first (MINVALUE), and both are zero for DEFAULT.
type EventPartition struct {
	Name     string
	From, To time.Time
}

// partitionBounds (a select list) are a partition's bounds, lo and hi,
// read back from PostgreSQL's text of them, pb (in the session's time
// zone, which the cast understands): NULL for MINVALUE, MAXVALUE and
// DEFAULT. The text comes from pg_get_expr(relpartbound, 0): told the
// partition, it would open, and lock, each one, and wait behind a
// partition being dropped (the bounds name no column).
const partitionBounds = `(regexp_match(pb, 'FROM \(''([^'']+)''\)'))[1]::timestamptz AS lo,
  (regexp_match(pb, 'TO \(''([^'']+)''\)'))[1]::timestamptz AS hi`

// eventPartitionsSQL lists events' partitions and their bounds.
const eventPartitionsSQL = `SELECT c.relname, ` + partitionBounds + `
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
CROSS JOIN LATERAL pg_get_expr(c.relpartbound, 0) AS pb
WHERE i.inhparent = 'events'::regclass ORDER BY 1`

// EventPartitions lists events' partitions, in name order.
func (db *DB) EventPartitions(ctx context.Context) ([]EventPartition, error) {
	rows, err := db.Pool.Query(ctx, eventPartitionsSQL)
	if err != nil {
		return nil, translate(err, "events")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (EventPartition, error) {
		var p EventPartition
		var from, to *time.Time
		err := r.Scan(&p.Name, &from, &to)
		if from != nil {
			p.From = *from
		}
		if to != nil {
			p.To = *to
		}
		return p, err
	})
	return out, translate(err, "events")
}
