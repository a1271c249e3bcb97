// Package postgres is the only importer of pgx besides internal/jobs (which
// hands this pool to River): the pool, the embedded numbered migrations,
// every query, and the translation of database errors into domain errors.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/webhook"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is the application's handle on PostgreSQL.
type DB struct {
	Pool *pgxpool.Pool
	// Hook, when set (before ingest starts), runs inside every ingest
	// transaction that stored something: guardrail and budget alerts.
	Hook WriteHook
	// Enqueue queues webhook deliveries in a transaction (the job
	// runner's InsertTx); nil drops them.
	Enqueue func(ctx context.Context, tx pgx.Tx, envs []webhook.Envelope) error
	// EnqueuePurge queues a deleted project's purge in the transaction
	// that deletes it (the job runner's InsertTx); nil purges at once.
	EnqueuePurge EnqueuePurge
	// EnqueueTagBackfill queues the back-fill of newly declared tag keys
	// in the transaction that declares them (the job runner's InsertTx);
	// nil back-fills at once, before PutTags returns.
	EnqueueTagBackfill func(ctx context.Context, tx pgx.Tx, projectID string) error
	// TagBackfillChunk bounds the calls one tag back-fill step counts
	// (DefaultTagBackfillChunk when 0).
	TagBackfillChunk int
	// keys caches authenticated API keys (CacheAPIKeys); nil: none.
	keys *keyCache
	// MergeSlice bounds the calls one rollup merge step folds
	// (DefaultMergeSlice when 0); MergeTimeout is a step's statement
	// timeout (10 minutes when 0). Set them before the merger starts.
	MergeSlice   int64
	MergeTimeout time.Duration
	// work, when opened (OpenWork), serves ingest apart from the reads;
	// merge (OpenMerge) the mergers.
	work, merge *pgxpool.Pool
	// quick serves the one-row statements every request makes (its rate
	// limit count, its credential) and the budget-state read: a report
	// that runs its queries in parallel can hold every connection of Pool
	// for a hundred milliseconds, and a poll waiting behind it for a
	// connection took that long for a statement of a fraction of a
	// millisecond.
	quick *pgxpool.Pool
	// pooled: Pool, quick, work and merge reach PostgreSQL through a
	// transaction pooler (OpenPooled); direct, when set, is a connection
	// that does not, for what needs a session (the key cache's LISTEN).
	pooled bool
	direct *pgx.ConnConfig
	// budgets caches budget states (CacheBudgets); nil: none.
	budgets *budgetCache
	// replica, when opened (OpenReplica), serves the reports that may
	// read it (replica.go).
	replica *replica
	// OnStored, when set (before ingest starts), hears how many calls of
	// a project each write stored and how many runs it marked, once it
	// committed: the back-pressure gate counts them until its next reading
	// of the merge lag.
	OnStored func(projectID string, calls, runs int64)
	// RawRetentionDays and RollupRetentionDays are the deployment's
	// retention (raw_retention_days, rollup_retention_days), set before
	// serving; 0 keeps forever. A project's own setting overrides them
	// (retention.go).
	RawRetentionDays, RollupRetentionDays int
	// months is what ingest knows of events' partitions
	// (partitions_ingest.go).
	months monthCache
}

// Open connects to url with a bounded pool. A pool that cannot hand out a
// connection within the acquire timeout fails fast, so callers get an
// unavailable error instead of hanging.
func Open(ctx context.Context, url string, maxConns int32) (*DB, error) {
	return open(ctx, &DB{}, url, maxConns)
}

func open(ctx context.Context, db *DB, url string, maxConns int32) (*DB, error) {
	cfg, err := db.poolConfig(url, maxConns)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	qcfg, err := db.poolConfig(url, quickConns)
	if err != nil {
		pool.Close()
		return nil, err
	}
	quick, err := pgxpool.NewWithConfig(ctx, qcfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	db.Pool, db.quick = pool, quick
	return db, nil
}

// quickConns bounds the quick pool: its statements take a fraction of a
// millisecond, so a few connections serve thousands of requests a second.
const quickConns = 4

// quickPool is the pool of the per-request statements: the quick pool
// when opened, else the one pool.
func (db *DB) quickPool() *pgxpool.Pool { return db.or(db.quick) }

// poolConfig is the configuration of a pool of at most maxConns (0: pgx's
// default) connections to url: through a transaction pooler when db is
// pooled (pooledConfig).
func (db *DB) poolConfig(url string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	if db.pooled {
		pooledConfig(cfg.ConnConfig, url)
	} else {
		sessionDefaults(cfg.ConnConfig)
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		conn.PgConn().CustomData()[epochKey] = connEpoch.Load()
		return useFastArrays(ctx, conn)
	}
	cfg.PrepareConn = func(_ context.Context, conn *pgx.Conn) (bool, error) {
		e, _ := conn.PgConn().CustomData()[epochKey].(uint64)
		return e == connEpoch.Load(), nil // false: closed, and the statement retried on another
	}
	return cfg, nil
}

// sessionDefaults sets llmcost's settings of its sessions as startup
// parameters: bounds on lock waits and statements, and no JIT compilation
// unless the URL asks for it (?jit=on): the reports' statements run for
// milliseconds, and at 90 days their estimated cost crosses
// jit_above_cost, where compiling takes longer than the query
// (docs/performance.md).
func sessionDefaults(cfg *pgx.ConnConfig) {
	for _, s := range settings {
		if _, set := cfg.RuntimeParams[s.name]; !set || !s.urlMay {
			cfg.RuntimeParams[s.name] = s.value
		}
	}
}

// settings are the session settings llmcost gives its connections; setting
// is the value pg_settings shows for it.
var settings = []struct {
	name, value, setting string
	urlMay               bool // the URL's own value wins
}{
	{"lock_timeout", "10s", "10000", false},
	{"statement_timeout", "60s", "60000", false},
	{"jit", "off", "off", true},
}

// When the server restarts, every pooled connection is dead, but each
// fails only when next used: a read after an outage answered 503 once per
// idle connection of its pool, although the server was back. So the first
// statement that finds the server gone moves connEpoch on, and a pool
// hands out no connection opened before (PrepareConn closes it and takes
// another): one failed statement, not one per pooled connection.
var connEpoch atomic.Uint64

// epochKey holds, in a connection's CustomData, the epoch it was opened in.
const epochKey = "llmcost.epoch"

// lostConnection reports whether err says the server or the connection
// went away (as opposed to a statement's own error, a timeout or a
// cancellation).
func lostConnection(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed)
}

// Close stops the key cache's listener and releases the pool.
func (db *DB) Close() {
	if db.keys != nil {
		db.keys.stop()
	}
	for _, p := range db.pools() {
		p.Close()
	}
}

// pools are the pools opened: the read pool last.
func (db *DB) pools() []*pgxpool.Pool {
	var out []*pgxpool.Pool
	for _, p := range append([]*pgxpool.Pool{db.work, db.merge, db.quick}, db.replicaPools()...) {
		if p != nil {
			out = append(out, p)
		}
	}
	return append(out, db.Pool)
}

// or is p when opened, else the read pool (a DB from OpenBulk has only
// that one).
func (db *DB) or(p *pgxpool.Pool) *pgxpool.Pool {
	if p != nil {
		return p
	}
	return db.Pool
}

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return db.Pool.Ping(ctx)
}

// Migrate applies the embedded migrations not yet applied, in order, each in
// its own transaction, and returns how many it applied. Then each of more
// (the job runner's own migrations) runs step by step: a step applies at
// most one migration in the transaction it is given and says how many it
// applied; Migrate calls it again until it applies none.
//
// Every transaction first takes migrateLockID's transaction-level advisory
// lock and only then looks at what is applied, so two starting instances
// apply each migration once. A transaction-level lock, not a session
// lock held across them: it needs no session of its own, so migrations
// run through a transaction-pooling PgBouncer as they do directly (a
// session lock taken there stays on whichever server connection ran it).
func (db *DB) Migrate(ctx context.Context, more ...func(context.Context, pgx.Tx) (int, error)) (int, error) {
	step := func(fn func(pgx.Tx) error) error {
		return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
				return err
			}
			return fn(tx)
		})
	}
	if err := step(func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
		return err
	}); err != nil {
		return 0, err
	}
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return 0, err
	}
	sort.Strings(files)
	applied := 0
	for _, file := range files {
		name := strings.TrimPrefix(file, "migrations/")
		version, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return applied, fmt.Errorf("migration %s: name must start with a number", name)
		}
		did := false
		err = step(func(tx pgx.Tx) error {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS(SELECT 1 FROM schema_migrations WHERE version=$1)`, version).Scan(&done); err != nil || done {
				return err
			}
			sql, _ := migrationFS.ReadFile(file)
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, version, name)
			did = err == nil
			return err
		})
		if err != nil {
			return applied, err
		}
		if did {
			applied++
		}
	}
	for _, f := range more {
		for n := 1; n > 0; {
			if err := step(func(tx pgx.Tx) (err error) { n, err = f(ctx, tx); return err }); err != nil {
				return applied, err
			}
		}
	}
	return applied, nil
}

// migrateLockID is the advisory lock under which migrations are applied.
const migrateLockID = 7431082201

// translate maps database errors to domain errors once, here: a missing
// row is not_found, a unique violation a conflict, a value the column cannot
// hold a validation failure, and anything that looks like the server being
// away or overloaded is unavailable, which clients may retry. The driver's
// text stays in the cause, for the log.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return apierr.Newf(apierr.NotFound, "%s not found", what)
	}
	if bound := boundError(err); bound != nil {
		return bound
	}
	if lostConnection(err) {
		connEpoch.Add(1)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		// Anything else from the driver (dial failure, closed pool, timeout,
		// broken connection) is transient from the client's point of view.
		return apierr.Unavailablef(err, "the database is unavailable")
	}
	switch code := pgErr.Code; {
	case code == "23505":
		return apierr.Wrap(err, apierr.Conflict, what+" already exists")
	case code == "22P02", code == "22021", code == "22P05", code == "54000":
		return apierr.Wrap(err, apierr.ValidationFailed, what+": a value the database cannot store")
	case transient(code):
		return apierr.Unavailablef(err, "the database is unavailable")
	}
	return apierr.Wrap(err, apierr.Internal, "internal error")
}

// transient reports SQLSTATEs of a database that is away or overloaded:
// connection exceptions, insufficient resources, operator intervention,
// serialization failures, deadlocks and lock timeouts.
func transient(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57"):
		return true
	}
	return code == "40001" || code == "40P01" || code == "55P03"
}
