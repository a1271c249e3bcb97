package postgres

import (
	"testing"
	"time"
)

// The cache's rules, without a database: entries are served only while the
// listener is live and younger than the TTL, and a read that started
// before an invalidation never enters the cache.
func TestKeyCacheRules(t *testing.T) {
	h := make([]byte, 32)
	h[0] = 1
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	fresh := func() *keyCache {
		c := &keyCache{ttl: time.Minute, now: func() time.Time { return now }, m: map[[32]byte]keyEntry{}}
		c.invalidate(true)
		return c
	}
	for _, tc := range []struct {
		name string
		run  func(c *keyCache)
		hit  bool
	}{
		{"put then get", func(c *keyCache) { c.put(h, "p", c.snapshot()) }, true},
		{"not live: nothing kept", func(c *keyCache) { c.invalidate(false); c.put(h, "p", c.snapshot()) }, false},
		{"listener went down after put", func(c *keyCache) { c.put(h, "p", c.snapshot()); c.invalidate(false) }, false},
		{"notification after put", func(c *keyCache) { c.put(h, "p", c.snapshot()); c.invalidate(true) }, false},
		{"notification during the read", func(c *keyCache) {
			gen := c.snapshot()
			c.invalidate(true) // a rotation committed while the read ran
			c.put(h, "p", gen)
		}, false},
		{"older than the TTL", func(c *keyCache) {
			c.put(h, "p", c.snapshot())
			c.now = func() time.Time { return now.Add(time.Minute) }
		}, false},
		{"just under the TTL", func(c *keyCache) {
			c.put(h, "p", c.snapshot())
			c.now = func() time.Time { return now.Add(time.Minute - time.Nanosecond) }
		}, true},
		{"a hash of another length is never cached", func(c *keyCache) { c.put(h[:31], "p", c.snapshot()) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fresh()
			tc.run(c)
			id, hit := c.get(h)
			if hit != tc.hit || (hit && id != "p") {
				t.Fatalf("get = %q, %v; want hit %v", id, hit, tc.hit)
			}
		})
	}
}
