package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// cachingInstance opens url as one llmcost instance with the key cache on
// and waits until its listener is live.
func cachingInstance(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	live := make(chan struct{}, 1)
	db.CacheAPIKeys(time.Minute, func(on bool, _ error) {
		if on {
			select {
			case live <- struct{}{}:
			default:
			}
		}
	})
	select {
	case <-live:
	case <-time.After(10 * time.Second):
		t.Fatal("the key cache's listener did not start")
	}
	return db
}

// refusedWithin polls until db refuses hash, and fails after limit.
func refusedWithin(t *testing.T, db *postgres.DB, hash []byte, limit time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	for {
		if _, err := db.ProjectIDByKeyHash(context.Background(), hash); err != nil {
			return time.Since(t0)
		}
		if time.Since(t0) > limit {
			t.Fatalf("a revoked key still worked after %s", limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// Two instances on one database cache keys; a rotation or deletion made
// through one stops the old key on the other as soon as the NOTIFY of
// migration 0016 arrives, and at once on the one that made it.
func TestAPIKeyCacheAcrossInstances(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	setup, err := postgres.Open(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	if _, err := setup.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := cachingInstance(t, url), cachingInstance(t, url)
	k1, k2 := authn.Hash(authn.NewAPIKey()), authn.Hash(authn.NewAPIKey())
	_, p, err := a.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: k1, KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []*postgres.DB{a, b} {
		if id, err := db.ProjectIDByKeyHash(ctx, k1); err != nil || id != p.ID {
			t.Fatalf("key: %q, %v", id, err)
		}
	}

	// The cache answers: with triggers off (no NOTIFY) a changed hash is
	// not seen, which no uncached read could do.
	conn, err := setup.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	silently := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `SET session_replication_role = origin`); err != nil {
			t.Fatal(err)
		}
	}
	silently(`UPDATE projects SET key_hash = $2 WHERE id = $1`, p.ID, k2)
	if id, err := b.ProjectIDByKeyHash(ctx, k1); err != nil || id != p.ID {
		t.Fatalf("cached key not served: %q, %v", id, err)
	}
	silently(`UPDATE projects SET key_hash = $2 WHERE id = $1`, p.ID, k1)

	// Rotation through a: a refuses the old key before RotateKey returns,
	// b as soon as the notification arrives.
	if _, err := a.RotateKey(ctx, p.ID, k2, "sk_llmc_yyyy", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ProjectIDByKeyHash(ctx, k1); err == nil {
		t.Fatal("the rotating instance still accepts the old key")
	}
	took := refusedWithin(t, b, k1, 2*time.Second)
	t.Logf("old key refused by the other instance %s after the rotation returned", took)
	if id, err := b.ProjectIDByKeyHash(ctx, k2); err != nil || id != p.ID {
		t.Fatalf("new key: %q, %v", id, err)
	}

	// A deactivation made outside llmcost (an operator's UPDATE) and a
	// deletion: the trigger notifies either way.
	if _, err := conn.Exec(ctx, `UPDATE projects SET is_active = false WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	silently(`UPDATE projects SET key_hash = $2 WHERE id = $1`, p.ID, k1) // only a refilled cache could answer k2 now
	refusedWithin(t, b, k2, 2*time.Second)
	if _, err := b.ProjectIDByKeyHash(ctx, k1); err != nil {
		t.Fatal(err)
	}

	// A listener that loses its connection empties the cache, since
	// notifications could be missed, and listens again a second later.
	listeners := `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN ` + postgres.KeyChannel + `'`
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+postgres.KeyChannel+`'`); err != nil {
		t.Fatal(err)
	}
	silently(`UPDATE projects SET key_hash = $2 WHERE id = $1`, p.ID, k2)
	refusedWithin(t, b, k1, 2*time.Second)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(ctx, listeners).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d listeners back after 10 s, want 2", n)
		}
	}
	time.Sleep(50 * time.Millisecond) // LISTEN shows before the cache is marked live
	if _, err := b.ProjectIDByKeyHash(ctx, k2); err != nil {
		t.Fatal(err)
	}
	silently(`UPDATE projects SET key_hash = $2 WHERE id = $1`, p.ID, k1)
	if _, err := b.ProjectIDByKeyHash(ctx, k2); err != nil {
		t.Fatalf("the cache is not used again after the listener came back: %v", err)
	}
	if err := a.DeleteProject(ctx, p.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	refusedWithin(t, b, k2, 2*time.Second)
}
