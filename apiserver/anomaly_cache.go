package apiserver

import (
	"context"
	"sync"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
	"github.com/llmcost/llmcost/internal/forecast"
)

// The overview, /full and the agent views carry the window's anomalous
// days as a signal (docs/forecast.md). Judging them reads every agent's
// daily spend over the window and the 28 days before it: a read as large
// as the report it rides on, for days that change only as today's spend
// grows. So each instance keeps a window's judgement for signalFresh and
// the reports of that minute share it; GET /v1/analytics/anomalies itself
// reads afresh.
const (
	signalFresh  = time.Minute
	signalForget = 10 * time.Minute
)

type signalKey struct {
	project     string
	first, last time.Time // the UTC days the window touches
}

type signalEntry struct {
	found   []anomaly.Scoped
	readAt  time.Time
	reading chan struct{} // closed when the read in flight ends
	err     error
}

// signalCache holds the judged windows of recently read projects.
type signalCache struct {
	mu sync.Mutex
	m  map[signalKey]*signalEntry
	// read judges a window (reports.Anomalies; tests count).
	read func(ctx context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error)
}

// get answers the window's anomalous days as judged within signalFresh
// of now, judging them when none is: concurrent reports of one window
// wait for one read.
func (c *signalCache) get(ctx context.Context, project string, w analytics.Span, now time.Time) ([]anomaly.Scoped, error) {
	k := signalKey{project, forecast.DayOf(w.Start), forecast.DayOf(w.End)}
	c.mu.Lock()
	c.forget(now)
	e := c.m[k]
	if e != nil && e.reading == nil && e.err == nil && now.Sub(e.readAt) < signalFresh {
		found := e.found
		c.mu.Unlock()
		return found, nil
	}
	if e != nil && e.reading != nil {
		wait := e.reading
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
		found, err := e.found, e.err
		c.mu.Unlock()
		return found, err
	}
	e = &signalEntry{reading: make(chan struct{})}
	c.m[k] = e
	c.mu.Unlock()
	found, err := c.read(ctx, project, w)
	c.mu.Lock()
	e.found, e.err, e.readAt = found, err, now
	close(e.reading)
	e.reading = nil
	if err != nil {
		delete(c.m, k) // the next report reads again
	}
	c.mu.Unlock()
	return found, err
}

// forget drops windows unread for signalForget (under c.mu).
func (c *signalCache) forget(now time.Time) {
	for k, e := range c.m {
		if e.reading == nil && now.Sub(e.readAt) > signalForget {
			delete(c.m, k)
		}
	}
}
