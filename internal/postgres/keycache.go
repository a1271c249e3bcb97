package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// KeyChannel is the NOTIFY channel migration 0016's trigger signals when a
// project's key changes (rotation) or a project goes (deletion): every
// instance caching keys drops its cache on it.
const KeyChannel = "llmcost_api_keys"

// DefaultKeyCacheTTL is how long an authenticated key is reused when the
// caller names none. Revocation does not wait for it (the NOTIFY does);
// it only bounds how long an idle entry is kept.
const DefaultKeyCacheTTL = time.Minute

// keyCache maps API key hashes to their project, so a poll does not pay
// a round trip to authenticate. It is used only while its listener is
// LISTENing on KeyChannel: every committed rotation or deletion then
// reaches it as a notification, which empties it. While the listener is
// down it is empty and bypassed, since notifications may be missed.
type keyCache struct {
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	live bool   // the listener is LISTENing: entries may be used and added
	gen  uint64 // bumped by every invalidation
	m    map[[32]byte]keyEntry

	cancel context.CancelFunc
	done   chan struct{}
}

type keyEntry struct {
	project string
	at      time.Time
}

// get returns the project of hash when a fresh entry holds it.
func (c *keyCache) get(hash []byte) (string, bool) {
	k, ok := cacheKey(hash)
	if !ok {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, hit := c.m[k]
	if !hit || !c.live {
		return "", false
	}
	if c.now().Sub(e.at) >= c.ttl {
		delete(c.m, k)
		return "", false
	}
	return e.project, true
}

// snapshot is the generation before a database read; put stores its
// result only if nothing was invalidated since, so a read that raced a
// rotation (it saw the old key, the notification came before put) never
// enters the cache.
func (c *keyCache) snapshot() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *keyCache) put(hash []byte, project string, gen uint64) {
	k, ok := cacheKey(hash)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.gen != gen {
		return
	}
	if len(c.m) >= maxCachedKeys {
		clear(c.m) // keys of many projects: start over rather than track age
	}
	c.m[k] = keyEntry{project: project, at: c.now()}
}

// maxCachedKeys bounds the cache's memory: one entry per project key.
const maxCachedKeys = 100_000

// invalidate empties the cache and sets whether it may be used.
func (c *keyCache) invalidate(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = live
	clear(c.m)
}

// dropKeys empties this instance's key cache at once, after a rotation or
// deletion it committed, without waiting for its own notification.
func (db *DB) dropKeys() {
	if c := db.keys; c != nil {
		c.mu.Lock()
		live := c.live
		c.mu.Unlock()
		c.invalidate(live)
	}
}

func cacheKey(hash []byte) ([32]byte, bool) {
	var k [32]byte
	return k, copy(k[:], hash) == len(k) && len(hash) == len(k)
}

// CacheAPIKeys makes ProjectIDByKeyHash remember authenticated keys for
// at most ttl (DefaultKeyCacheTTL when 0) on a dedicated connection that
// LISTENs on KeyChannel: a rotated key or a deleted project stops working
// on this instance as soon as the notification of its commit arrives
// (a round trip's time), and while that connection is down nothing is
// cached. onState, when set, hears each change of the listener's state
// (live, or down with its error). Close stops it. A DB that cannot LISTEN
// (CanListen) caches nothing.
func (db *DB) CacheAPIKeys(ttl time.Duration, onState func(live bool, err error)) {
	if !db.CanListen() {
		return // through a transaction pooler, with no direct URL: no LISTEN, no cache
	}
	if ttl <= 0 {
		ttl = DefaultKeyCacheTTL
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &keyCache{ttl: ttl, now: time.Now, m: map[[32]byte]keyEntry{}, cancel: cancel, done: make(chan struct{})}
	db.keys = c
	cfg := db.listenConfig()
	go func() {
		defer close(c.done)
		c.listen(ctx, func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg) }, onState)
	}()
}

// listen keeps one LISTEN connection open, reconnecting after a second
// when it fails, and empties the cache on every notification.
func (c *keyCache) listen(ctx context.Context, connect func(context.Context) (*pgx.Conn, error), onState func(bool, error)) {
	for ctx.Err() == nil {
		conn, err := connect(ctx)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+KeyChannel)
		}
		if err == nil {
			// Changes committed from now on are notified; entries of
			// reads started before are refused by the generation.
			c.invalidate(true)
			if onState != nil {
				onState(true, nil)
			}
			for err == nil {
				_, err = conn.WaitForNotification(ctx)
				c.invalidate(err == nil)
			}
		}
		c.invalidate(false)
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Close(closeCtx)
			cancel()
		}
		if ctx.Err() != nil {
			return
		}
		if onState != nil {
			onState(false, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// stop ends the listener and waits for it.
func (c *keyCache) stop() {
	c.cancel()
	<-c.done
}

// ProjectIDByKeyHash resolves an API key hash to its project's id: from
// the key cache when CacheAPIKeys runs and holds it, else by one
// primary-key read (a unique index) whose answer the cache then keeps.
// An unknown hash is Unauthorized and never cached.
func (db *DB) ProjectIDByKeyHash(ctx context.Context, keyHash []byte) (string, error) {
	c := db.keys
	var gen uint64
	if c != nil {
		if id, ok := c.get(keyHash); ok {
			return id, nil
		}
		gen = c.snapshot()
	}
	var id string
	err := db.quickPool().QueryRow(ctx, `SELECT id FROM projects WHERE key_hash = $1 AND deleted_at IS NULL`, keyHash).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apierr.New(apierr.Unauthorized, "invalid API key")
	}
	if err != nil {
		return "", translate(err, "project")
	}
	if c != nil {
		c.put(keyHash, id, gen)
	}
	return id, nil
}
