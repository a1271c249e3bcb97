package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgbouncertest"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// hammer runs statements with arguments, batches and transactions from
// eight goroutines on pool and returns the distinct errors.
func hammer(pool *pgxpool.Pool) map[string]int {
	ctx := context.Background()
	var mu sync.Mutex
	errs := map[string]int{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				var n int64
				var s []string
				err := pool.QueryRow(ctx, `SELECT $1::bigint + $2, $3::text[]`, int64(g), int64(i), []string{"a", "b"}).Scan(&n, &s)
				if err == nil {
					b := &pgx.Batch{}
					b.Queue(`SELECT $1::int`, i)
					b.Queue(`SELECT $1::text`, "x")
					err = pool.SendBatch(ctx, b).Close()
				}
				if err == nil {
					err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
						_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(i%3))
						return err
					})
				}
				if err != nil {
					mu.Lock()
					errs[err.Error()]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// Through PgBouncer (1.18, transaction pooling, two server connections),
// pgx's default exec mode fails on its named prepared statements and a
// direct connection's startup parameters are refused; a pooled DB
// (OpenPooled: QueryExecModeCacheDescribe, no startup parameters) works,
// two instances migrate at once, and the settings the pooled sessions
// lack are named until the database's defaults give them.
func TestPooledThroughPgBouncer(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	b := pgbouncertest.Start(t, url, pgbouncertest.Options{PoolSize: 2})

	plain, err := pgxpool.New(ctx, b.URL)
	if err != nil {
		t.Fatal(err)
	}
	errs := hammer(plain)
	plain.Close()
	named := 0
	for e, n := range errs {
		if strings.Contains(e, "prepared statement") {
			named += n
		}
	}
	if named == 0 {
		t.Errorf("pgx's default exec mode through the pooler: no prepared statement errors (%v): the pooler tracks them now?", errs)
	}
	direct, err := postgres.Open(ctx, b.URL, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Ping(ctx); err == nil || !strings.Contains(err.Error(), "unsupported startup parameter") {
		t.Errorf("a direct DB through the pooler: %v, want its startup parameters refused", err)
	}
	direct.Close()

	dbs := make([]*postgres.DB, 2)
	applied := make([]int, 2)
	errc := make(chan error, 2)
	for i := range dbs {
		direct := ""
		if i == 0 {
			direct = url
		}
		if dbs[i], err = postgres.OpenPooled(ctx, b.URL, direct, 8); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dbs[i].Close)
		go func() {
			var err error
			applied[i], err = dbs[i].Migrate(ctx)
			errc <- err
		}()
	}
	for range dbs {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	var versions int
	if err := dbs[0].Pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&versions); err != nil || applied[0]+applied[1] != versions {
		t.Errorf("the two instances applied %v migrations, %d are recorded (%v)", applied, versions, err)
	}
	if errs := hammer(dbs[1].Pool); len(errs) > 0 {
		t.Errorf("a pooled DB: %v", errs)
	}
	if !dbs[0].CanListen() || dbs[1].CanListen() {
		t.Errorf("CanListen: %v with a direct URL, %v without", dbs[0].CanListen(), dbs[1].CanListen())
	}

	missing, err := dbs[0].PendingSettings(ctx)
	if err != nil || strings.Join(missing, ", ") != "lock_timeout = '10s', statement_timeout = '60s', jit = 'off'" {
		t.Errorf("pending settings %q (%v)", missing, err)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"statement_timeout = '60s'", "lock_timeout = '10s'", "jit = off"} {
		if err := pgbouncertest.Exec(ctx, url, "ALTER DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()+" SET "+s); err != nil {
			t.Fatal(err)
		}
	}
	// The pooler's server connections keep the defaults they started with:
	// a fresh pooler's are new sessions.
	fresh := pgbouncertest.Start(t, url, pgbouncertest.Options{PoolSize: 1})
	db, err := postgres.OpenPooled(ctx, fresh.URL, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if missing, err := db.PendingSettings(ctx); err != nil || len(missing) > 0 {
		t.Errorf("pending settings with the database's defaults: %q (%v)", missing, err)
	}
}
