package postgres

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
)

// A batch whose calls fall in a recent month with no partition yet (a
// back-fill, oldest day first) has the month created before it is stored
// (migration 0048), so its calls land in their month and DEFAULT stays
// empty. Left to the partition job, they sat in DEFAULT until the job
// moved them out under a lock that held up every project's reads and
// ingest for the move. Only the months from gapMonths back to the current
// one are created here, the months the job would create for them anyway;
// a call from years ago or far ahead still goes to DEFAULT, where the job
// takes it. Nothing depends on this for correctness: a month it fails to
// create (a lock not granted in time, an error) leaves the batch's calls
// to DEFAULT, as before.

// monthRetry is how long a month that could not be made at ingest is left
// to the partition job before a batch tries again.
const monthRetry = 30 * time.Second

// monthCache is what ingest knows of events' partitions: the ranges they
// cover, read on the first batch and again after each month made, and the
// months not to try again before a time. mu guards the fields; making
// holds one batch's look at a time, so the batches of a back-fill that
// wait for it find the month made, while a batch whose months are all
// covered never waits.
type monthCache struct {
	making  sync.Mutex
	mu      sync.Mutex
	covered []EventPartition // DEFAULT left out; From zero for MINVALUE
	loaded  bool
	retryAt map[time.Time]time.Time
}

// missing are the months of ms to make: not covered by a partition and
// not left to the job until later; all of ms before the first reload.
func (c *monthCache) missing(now time.Time, ms []time.Time) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		return ms
	}
	var out []time.Time
	for _, m := range ms {
		if !c.covers(m) && !now.Before(c.retryAt[m]) {
			out = append(out, m)
		}
	}
	return out
}

// covers says whether a partition other than DEFAULT holds month m.
func (c *monthCache) covers(m time.Time) bool {
	for _, p := range c.covered {
		if (p.From.IsZero() || !m.Before(p.From)) && m.Before(p.To) {
			return true
		}
	}
	return false
}

// ingestMonths are the distinct months of events' calls that ingest may
// create a partition for: from gapMonths before now's month to now's.
func ingestMonths(now time.Time, events []event.Event) []time.Time {
	cur := monthStart(now)
	first := cur.AddDate(0, -gapMonths, 0)
	var out []time.Time
	for i := range events {
		m := monthStart(events[i].Timestamp)
		if m.Before(first) || m.After(cur) || slices.ContainsFunc(out, m.Equal) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// ensureIngestMonths makes the partitions of events' recent months that do
// not exist yet, before the batch that needs them is stored.
func (db *DB) ensureIngestMonths(ctx context.Context, now time.Time, events []event.Event) {
	c := &db.months
	months := ingestMonths(now, events)
	if len(months) == 0 || len(c.missing(now, months)) == 0 {
		return
	}
	c.making.Lock()
	defer c.making.Unlock()
	if !c.reload(ctx, db) {
		return
	}
	for _, m := range c.missing(now, months) {
		// Whether made here or not (DEFAULT holds calls of it, which the
		// job moves; a lock not granted in time; another instance first),
		// the partitions read again say whether the month is there.
		db.createMonth(ctx, m)
		if c.reload(ctx, db) && len(c.missing(now, []time.Time{m})) == 0 {
			continue
		}
		c.mu.Lock()
		if c.retryAt == nil {
			c.retryAt = map[time.Time]time.Time{}
		}
		c.retryAt[m] = now.Add(monthRetry)
		c.mu.Unlock()
	}
}

// reload reads the partitions' ranges again; false when it could not.
func (c *monthCache) reload(ctx context.Context, db *DB) bool {
	parts, err := db.EventPartitions(ctx)
	if err != nil {
		return false
	}
	parts = slices.DeleteFunc(parts, func(p EventPartition) bool { return p.From.IsZero() && p.To.IsZero() })
	c.mu.Lock()
	c.covered, c.loaded = parts, true
	c.mu.Unlock()
	return true
}

// createMonth makes month m's partition unless DEFAULT holds calls of it,
// waiting for its locks no longer than the partition job does. A failure
// is not the batch's: its calls then go to DEFAULT.
func (db *DB) createMonth(ctx context.Context, m time.Time) {
	_ = pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, partitionLockTimeout); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT llmcost_events_partition($1, false)`, m)
		return err
	})
}
