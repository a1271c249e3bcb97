package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A read replica takes the reports off the primary without weakening what
// a 200 on ingest means: the next report includes the batch. So a report
// reads the replica only once the replica has replayed everything the
// primary had made durable when the report began. That position is asked
// of the primary at read time (pg_current_wal_flush_lsn() on the quick
// pool, a fraction of a millisecond), not remembered from this instance's
// own writes: another instance may have acknowledged the batch, and one
// tiny primary round trip per report is exact across every instance
// while ingest pays nothing. An acknowledged batch's commit record is
// flushed before the 200 (synchronous_commit is never off in llmcost), so
// it lies at or before that position; a standby makes a transaction
// visible when it replays its commit record, so a replay position at or
// past it (pg_last_wal_replay_lsn()) includes the batch.
//
// A run report first refreshes its project's marked runs on the primary
// (FreshRuns); the position is read after that refresh commits, so the
// replica is used only once it has replayed the refresh too.
//
// A replica that is behind costs a read at most its wait, then the read
// goes to the primary; a replica that fails (unreachable, not a standby,
// a statement error) has its read retried on the primary, and is left
// alone for a while (doubling up to replicaMaxBackoff) so a dead one is
// not dialled on every read.

// DefaultReplicaWait bounds how long a read waits for the replica to replay
// the primary's position before it reads the primary instead.
const DefaultReplicaWait = 100 * time.Millisecond

const (
	// replicaPollGap spaces the replay polls of a read waiting for the
	// replica: a replay of a few milliseconds is seen within one gap.
	replicaPollGap = 2 * time.Millisecond
	// replicaFirstPoll is how long a read waits for its first poll's
	// answer even when it may not wait for the replay.
	replicaFirstPoll = 10 * time.Millisecond
	// replicaPollTimeout bounds one replay poll, so a replica that does not
	// answer is found down within it whatever the reads' waits.
	replicaPollTimeout = time.Second
	// replicaMinBackoff and replicaMaxBackoff bound how long a failed
	// replica is left alone before it is tried again.
	replicaMinBackoff = time.Second
	replicaMaxBackoff = 30 * time.Second
	// replicaLagHold is how long after a read gave up waiting the reads
	// only look at the replay position instead of waiting for it: a
	// replica far behind costs one poll per read, not the whole wait.
	replicaLagHold = time.Second
)

// replica is the read replica's pools and what is known of it.
type replica struct {
	pool *pgxpool.Pool
	// probe serves the replay polls alone: reports holding every
	// connection of pool would otherwise hold a poll past its timeout, and
	// a busy replica would be taken for a dead one.
	probe  *pgxpool.Pool
	wait   time.Duration
	report func(error)

	replayed atomic.Uint64 // the highest replay position seen

	mu          sync.Mutex
	polling     chan struct{} // non-nil while a poll runs; closed when it ends
	downUntil   time.Time     // failed: not used before
	backoff     time.Duration
	laggedUntil time.Time // a read gave up waiting: later ones do not wait
	failed      bool      // last reported state

	fromReplica, fromPrimary atomic.Int64
}

// ReplicaOptions tunes OpenReplica.
type ReplicaOptions struct {
	// MaxConns bounds the replica's pool (0: pgx's default).
	MaxConns int32
	// Wait bounds how long a read waits for the replica to catch up
	// (0: DefaultReplicaWait).
	Wait time.Duration
	// Report, when set, hears each change of the replica's state: an
	// error when it stops being used, nil when it is used again.
	Report func(err error)
}

// CheckURL reports whether url is a PostgreSQL connection string: a
// postgres:// or postgresql:// URL, or libpq's keyword=value form.
func CheckURL(raw string) error {
	if scheme, _, ok := strings.Cut(raw, "://"); ok {
		if s := strings.ToLower(scheme); s != "postgres" && s != "postgresql" {
			return fmt.Errorf("must be a PostgreSQL URL (postgres://user@host:port/database), not a %q URL", scheme)
		}
		if _, err := url.Parse(raw); err != nil {
			return errors.New("not a valid URL") // the parser's text would repeat the password
		}
	}
	if _, err := pgxpool.ParseConfig(raw); err != nil {
		return errors.New("not a PostgreSQL connection string (postgres://user@host:port/database)")
	}
	return nil
}

// OpenReplica makes the reports (ReadsFromReplica) read from the hot
// standby at url whenever it has replayed what the primary had written when
// the read began. It does not connect: a replica that is down at start
// costs the first reads their wait, never a failed start or report.
func (db *DB) OpenReplica(url string, o ReplicaOptions) error {
	if err := CheckURL(url); err != nil {
		return err
	}
	cfg, err := db.poolConfig(url, o.MaxConns) // through a pooler, as the primary is
	if err != nil {
		return err
	}
	// A replica that does not answer must not hold a read for the
	// primary's five seconds.
	cfg.ConnConfig.ConnectTimeout = replicaPollTimeout
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return err
	}
	pcfg := cfg.Copy()
	pcfg.MaxConns = 2
	probe, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		pool.Close()
		return err
	}
	if o.Wait <= 0 {
		o.Wait = DefaultReplicaWait
	}
	db.replica = &replica{pool: pool, probe: probe, wait: o.Wait, report: o.Report}
	return nil
}

// ReplicaReads counts this instance's report reads answered by the
// replica and by the primary since OpenReplica; ok is false without a
// replica.
func (db *DB) ReplicaReads() (replica, primary int64, ok bool) {
	r := db.replica
	if r == nil {
		return 0, 0, false
	}
	return r.fromReplica.Load(), r.fromPrimary.Load(), true
}

// replicaPools are the replica's pools, none without one.
func (db *DB) replicaPools() []*pgxpool.Pool {
	if db.replica == nil {
		return nil
	}
	return []*pgxpool.Pool{db.replica.pool, db.replica.probe}
}

// snapshotOnReader runs read in one REPEATABLE READ read-only transaction
// through onReader: every statement of read sees one snapshot, on the
// replica when it has caught up. read sets its results anew each time it
// runs. The caller translates the error.
func (db *DB) snapshotOnReader(ctx context.Context, read func(tx pgx.Tx) error) error {
	return db.onReader(ctx, func(pool *pgxpool.Pool) error {
		return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, read)
	})
}

// onReader runs read, a read-only report read that sets its results anew
// each time it runs, on the replica when it has replayed what the primary
// had made durable when the read began, else (or when it fails there) on
// the read pool of the primary. The caller translates the error.
func (db *DB) onReader(ctx context.Context, read func(pool *pgxpool.Pool) error) error {
	r := db.replica
	if r == nil {
		return read(db.Pool)
	}
	if r.ready(ctx, db.quickPool()) {
		// A read that fails on the replica sets nothing, or sets its
		// results anew when run again.
		err := read(r.pool)
		if !r.retry(ctx, err) {
			r.fromReplica.Add(1)
			return err
		}
	}
	r.fromPrimary.Add(1)
	return read(db.Pool)
}

// ready reports whether the replica has replayed the primary's durable
// position, waiting for it up to the replica's wait.
func (r *replica) ready(ctx context.Context, primary *pgxpool.Pool) bool {
	if !r.usable() {
		return false
	}
	var pos string
	if err := primary.QueryRow(ctx, `SELECT pg_current_wal_flush_lsn()::text`).Scan(&pos); err != nil {
		return false // the primary's read reports it
	}
	want, err := parseLSN(pos)
	if err != nil {
		return false
	}
	deadline := time.Now().Add(r.waitNow())
	for polls := 0; r.replayed.Load() < want; polls++ {
		if polls > 0 && !time.Now().Before(deadline) {
			r.lagged()
			return false
		}
		if polls > 0 && !sleepCtx(ctx, min(replicaPollGap, time.Until(deadline))) {
			return false
		}
		select {
		case <-r.poll():
		case <-ctx.Done():
			return false
		case <-time.After(max(time.Until(deadline), replicaFirstPoll)):
		}
		if !r.usable() {
			return false
		}
	}
	r.mu.Lock()
	r.laggedUntil = time.Time{}
	r.mu.Unlock()
	return true
}

// retry reports whether a read that failed on the replica with err is run
// again on the primary: every failure is (a lost or refused connection, a
// connection that timed out, a query cancelled by a conflict with
// recovery, a statement the standby refuses), but the caller's own end
// (its context) and a missing row, which are answers. A failure that is
// not the server's answer to the statement (the connection, not the
// query) also sets the replica aside.
func (r *replica) retry(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, pgx.ErrNoRows) {
		return false
	}
	var pgErr *pgconn.PgError
	if lostConnection(err) || !errors.As(err, &pgErr) {
		r.fail(err)
		r.pool.Reset() // its other connections are likely gone with this one
		r.probe.Reset()
	}
	return true
}
