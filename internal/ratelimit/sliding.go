package ratelimit

import (
	"sync"
	"time"
)

// Sliding allows Limit events per key within any Window-long span: unlike
// the fixed window it cannot be doubled by straddling a window boundary,
// which matters for slow limits such as 3 password-reset mails an hour.
type Sliding struct {
	Limit  int
	Window time.Duration
	Now    func() time.Time

	mu   sync.Mutex
	seen map[string][]time.Time
}

// NewSliding returns a limiter of limit events per rolling window.
func NewSliding(limit int, window time.Duration) *Sliding {
	return &Sliding{Limit: limit, Window: window, Now: time.Now, seen: map[string][]time.Time{}}
}

// Allow counts one event for key when it is within the limit. When it is
// not, retryAfter is how long until the oldest counted event leaves the
// window (at least one second); refused events are not counted.
func (l *Sliding) Allow(key string) (ok bool, retryAfter time.Duration) {
	now := l.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.seen) > 50_000 {
		for k := range l.seen {
			l.seen[k] = l.live(k, now)
			if len(l.seen[k]) == 0 {
				delete(l.seen, k)
			}
		}
	}
	times := l.live(key, now)
	if len(times) >= l.Limit {
		l.seen[key] = times
		return false, max(times[0].Add(l.Window).Sub(now), time.Second)
	}
	l.seen[key] = append(times, now)
	return true, 0
}

// live returns key's events still inside the window, oldest first.
func (l *Sliding) live(key string, now time.Time) []time.Time {
	times := l.seen[key]
	i := 0
	for i < len(times) && now.Sub(times[i]) >= l.Window {
		i++
	}
	return times[i:]
}
