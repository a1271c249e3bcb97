package postgres

import (
	"context"
	"sync"
	"time"
)

// A budget-state poll read two rows, but on a database saturated by ingest
// that round trip waited for a core behind everything else: tens of
// milliseconds at the 99th percentile, where enforcement points poll
// often. With the cache on (CacheBudgets), BudgetState answers from memory
// and the rows are read again in the background while polls keep coming.
//
// It stays exact for this instance's own writes: every ingest statement
// returns the month counter's value after its batch (the row lock orders
// batches, so that value counts every batch committed before it), and the
// cache keeps the highest value it has seen since its last read. A
// counter only grows under ingest, so the highest value is the latest.
// Another instance's batches and budget changes show within refreshAfter
// (the next read); a read then replaces what it read before, so a
// recomputed (lower) counter is taken as it is.

// Cache ages.
const (
	// refreshAfter: a poll of an entry read longer ago than this starts a
	// read in the background and answers from the entry meanwhile.
	refreshAfter = 250 * time.Millisecond
	// staleAfter: an entry read longer ago than this is read again before
	// the poll is answered (a project not polled for a while).
	staleAfter = 2 * time.Second
	// forgetAfter: entries not polled for this long are dropped.
	forgetAfter = 5 * time.Minute
)

type budgetKey struct {
	project string
	month   time.Time
}

type budgetEntry struct {
	read    BudgetRead
	readAt  time.Time // when the read that filled it began; zero: never filled
	usedAt  time.Time
	reading chan struct{} // closed when the read in flight ends; nil when none
	// written is the highest counter value a local batch saw since the
	// last read, recorded at writtenAt; writtenH says there is one.
	written   int64
	writtenAt time.Time
	writtenH  bool
}

// budgetCache holds the budget state of recently polled projects.
type budgetCache struct {
	mu sync.Mutex
	m  map[budgetKey]*budgetEntry
	// gen counts drops: a read that began before one is not kept.
	gen uint64
	now func() time.Time
}

// CacheBudgets turns the budget-state cache on; call it before serving.
func (db *DB) CacheBudgets() {
	db.budgets = &budgetCache{m: map[budgetKey]*budgetEntry{}, now: time.Now}
}

// budgetState is BudgetState through the cache.
func (c *budgetCache) budgetState(ctx context.Context, db *DB, project string, month time.Time) (BudgetRead, error) {
	k := budgetKey{project, month}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		now := c.now()
		e := c.m[k]
		if e == nil {
			c.forget(now)
			e = &budgetEntry{}
			c.m[k] = e
		}
		e.usedAt = now
		age := now.Sub(e.readAt)
		switch {
		case !e.readAt.IsZero() && age < staleAfter:
			if age >= refreshAfter && e.reading == nil {
				e.reading = make(chan struct{})
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					c.mu.Lock()
					defer c.mu.Unlock()
					_ = c.fill(ctx, db, k, e) // a failed read leaves the entry to age into a read of its own
				}()
			}
			return e.answer(), nil
		case e.reading != nil:
			done := e.reading
			c.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				c.mu.Lock()
				return BudgetRead{}, translate(context.Cause(ctx), "budget")
			}
			c.mu.Lock()
			if c.m[k] == e && !e.readAt.IsZero() && c.now().Sub(e.readAt) < staleAfter {
				return e.answer(), nil
			}
		default:
			e.reading = make(chan struct{})
			if err := c.fill(ctx, db, k, e); err != nil {
				return BudgetRead{}, err
			}
			return e.answer(), nil
		}
	}
}

// fill reads e's rows; called with mu held and e.reading set, it releases
// mu for the round trip.
func (c *budgetCache) fill(ctx context.Context, db *DB, k budgetKey, e *budgetEntry) error {
	began, gen := c.now(), c.gen
	c.mu.Unlock()
	read, err := db.readBudgetState(ctx, k.project, k.month)
	c.mu.Lock()
	close(e.reading)
	e.reading = nil
	if err != nil || c.gen != gen {
		return err // after a drop: left unfilled, the next poll reads again
	}
	if e.writtenH && !e.writtenAt.Before(began) && e.written > read.SpendNano {
		// A local batch that may have committed after the read's
		// snapshot: its counter value is the newer one.
		read.SpendNano = e.written
	}
	e.read, e.readAt, e.writtenH = read, began, false
	return nil
}

// answer is the entry's state with the highest counter value seen.
func (e *budgetEntry) answer() BudgetRead {
	r := e.read
	if e.writtenH && e.written > r.SpendNano {
		r.SpendNano = e.written
	}
	r.AsOf = e.readAt
	return r
}

// wrote records a committed batch's month counters.
func (c *budgetCache) wrote(changes []SpendChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range changes {
		if e := c.m[budgetKey{ch.ProjectID, ch.Month}]; e != nil && (!e.writtenH || ch.AfterNano > e.written) {
			e.written, e.writtenAt, e.writtenH = ch.AfterNano, c.now(), true
		}
	}
}

// drop empties the cache: budgets or counters changed other than by a
// batch's addition.
func (c *budgetCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}

// dropBudgets empties the budget-state cache, if on.
func (db *DB) dropBudgets() {
	if db.budgets != nil {
		db.budgets.drop()
	}
}

// forget drops entries nobody polled for forgetAfter; called with mu held
// when an entry is added.
func (c *budgetCache) forget(now time.Time) {
	for k, e := range c.m {
		if e.reading == nil && now.Sub(e.usedAt) > forgetAfter {
			delete(c.m, k)
		}
	}
}
