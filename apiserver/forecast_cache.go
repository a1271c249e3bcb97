package apiserver

import (
	"context"
	"sync"
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/postgres"
)

// The budget state is polled often (enforcement points, dashboards) and
// answers from memory (postgres.CacheBudgets); its forecast needs the
// project's daily spend, a read of about a month of daily rollups. The
// complete days barely change (only late calls reach them), so each
// instance keeps a project's days for historyFresh and reads them again
// in the background when a poll finds them older: a poll never waits for
// the database but for a project's first, and the polls of a project make
// at most one read a minute. Today's spend comes from the month counter
// the budget state reads anyway.
const (
	historyFresh  = time.Minute
	historyForget = 10 * time.Minute
)

type historyKey struct {
	project string
	today   time.Time
}

type historyEntry struct {
	days    []forecast.Day
	readAt  time.Time // zero: never filled
	usedAt  time.Time
	reading chan struct{} // closed when the read in flight ends
	err     error
}

// historyCache holds the daily history of recently polled projects.
type historyCache struct {
	mu sync.Mutex
	m  map[historyKey]*historyEntry
	// read reads a project's history of today (readHistory; tests count).
	read func(ctx context.Context, project string, today time.Time) ([]forecast.Day, error)
}

func newHistoryCache(db *postgres.DB) *historyCache {
	return &historyCache{m: map[historyKey]*historyEntry{}, read: func(ctx context.Context, project string, today time.Time) ([]forecast.Day, error) {
		return readHistory(ctx, db, project, today)
	}}
}

// historyFrom is the first day a forecast of today reads: the month's
// first day or the window before today, whichever is earlier.
func historyFrom(today time.Time) time.Time {
	month := postgres.MonthStart(today)
	if w := today.AddDate(0, 0, -forecast.Window); w.Before(month) {
		return w
	}
	return month
}

// readHistory reads the project's metered spend per complete day from
// historyFrom(today) to today.
func readHistory(ctx context.Context, db *postgres.DB, project string, today time.Time) ([]forecast.Day, error) {
	rows, err := db.DailySpend(ctx, project, historyFrom(today), today)
	if err != nil {
		return nil, err
	}
	return projectDays(rows), nil
}

// projectDays sums the agents' days into the project's.
func projectDays(rows []postgres.AgentDay) []forecast.Day {
	byDay := map[time.Time]int64{}
	for _, r := range rows {
		byDay[r.Day] += r.Nano
	}
	out := make([]forecast.Day, 0, len(byDay))
	for d, v := range byDay {
		out = append(out, forecast.Day{Date: d, Nano: v})
	}
	return out
}

// get answers the project's history of today, read at most historyFresh
// ago when one was read, else read now (once for concurrent polls).
func (c *historyCache) get(ctx context.Context, project string, now time.Time) ([]forecast.Day, error) {
	k := historyKey{project, forecast.DayOf(now)}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	if e == nil {
		c.forget(now)
		e = &historyEntry{}
		c.m[k] = e
	}
	e.usedAt = now
	if !e.readAt.IsZero() {
		if now.Sub(e.readAt) >= historyFresh && e.reading == nil {
			e.reading = make(chan struct{})
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c.fill(ctx, k, e, now) // a failed read keeps the older days
			}()
		}
		return e.days, nil
	}
	if e.reading == nil {
		e.reading = make(chan struct{})
		c.mu.Unlock()
		c.fill(ctx, k, e, now)
		c.mu.Lock()
		return e.days, e.err
	}
	done := e.reading
	c.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	c.mu.Lock()
	if e.readAt.IsZero() {
		if e.err != nil {
			return nil, e.err
		}
		return nil, context.Cause(ctx)
	}
	return e.days, nil
}

// fill reads e's days; called without mu, with e.reading set.
func (c *historyCache) fill(ctx context.Context, k historyKey, e *historyEntry, now time.Time) {
	days, err := c.read(ctx, k.project, k.today)
	c.mu.Lock()
	defer c.mu.Unlock()
	close(e.reading)
	e.reading, e.err = nil, err
	if err == nil {
		e.days, e.readAt = days, now
	}
}

// forget drops entries nobody polled for historyForget (yesterday's
// included); called with mu held.
func (c *historyCache) forget(now time.Time) {
	for k, e := range c.m {
		if e.reading == nil && now.Sub(e.usedAt) > historyForget {
			delete(c.m, k)
		}
	}
}
