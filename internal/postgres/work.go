package postgres

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ingest can saturate the server's cores for as long as calls pour in, and
// every report, budget-state poll and page then waits for a core behind
// it: on two cores, reports that take milliseconds took seconds, and a
// budget-state poll hundreds of milliseconds. Ingest is throughput work
// and the source of every merger's work; the reads are latency work, and
// the mergers are what keeps them fast. So ingest runs on a pool of its
// own (OpenWork) whose server processes, when PostgreSQL runs on this
// machine, get a lower CPU priority (a higher nice value): the kernel then
// runs a read's or a merger's process first whenever both want a core,
// so the mergers keep pace by taking the cores ingest would, and ingest
// still gets every core nobody else wants, as fast as before when idle.

// OpenWork opens the pool ingest uses, of at most maxConns
// connections to url, each of whose server processes gets nice (0: left
// as it is; 1–19: lower priority) when the server is a local PostgreSQL
// (a Unix socket or a loopback address, a process named postgres). Where
// the priority cannot be set (a remote server, no permission) the pool
// works all the same; what happened is reported through reniced, called
// once per connection (nil: not reported).
func (db *DB) OpenWork(ctx context.Context, url string, maxConns int32, nice int, reniced func(error)) error {
	pool, err := db.openNiced(ctx, url, maxConns, nice, reniced)
	if err != nil {
		return err
	}
	db.work = pool
	return nil
}

// OpenMerge opens the pool the mergers use (MergeStep, MergeRuns, the
// alert drain, a deleted project's purge), like OpenWork: its server processes get nice, between the
// reads' priority and ingest's. A read then never waits for a core behind
// a merge step; the mergers still take the cores from ingest, and when
// reads keep them behind, the backlog bound slows ingest down instead.
func (db *DB) OpenMerge(ctx context.Context, url string, maxConns int32, nice int, reniced func(error)) error {
	pool, err := db.openNiced(ctx, url, maxConns, nice, reniced)
	if err != nil {
		return err
	}
	db.merge = pool
	return nil
}

// openNiced opens a pool whose server processes get nice when local.
// Through a transaction pooler they do not: a server process serves
// every pool's transactions in turn, and the process id the pooler hands
// the client is its own invention, not a server process's.
func (db *DB) openNiced(ctx context.Context, url string, maxConns int32, nice int, reniced func(error)) (*pgxpool.Pool, error) {
	cfg, err := db.poolConfig(url, maxConns)
	if err != nil {
		return nil, err
	}
	local := localHost(cfg.ConnConfig.Host)
	opened := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if err := opened(ctx, conn); err != nil {
			return err
		}
		if nice > 0 {
			err := errRemote
			if db.pooled {
				err = errPooled
			} else if local {
				err = renice(conn.PgConn().PID(), nice)
			}
			if reniced != nil {
				reniced(err)
			}
		}
		return nil
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// errRemote: the server does not run on this machine, so its processes'
// priority is not ours to set.
var errRemote = errors.New("the database server is not on this machine: its processes keep their priority")

// errPooled: the connections go through a transaction pooler.
var errPooled = errors.New("the database is reached through a transaction pooler: its server processes keep their priority")

// errNotPostgres: the process of the backend's pid is not a postgres
// process of this machine (the server is in another PID namespace).
var errNotPostgres = errors.New("the backend's process is not a postgres process on this machine: its priority is left as it is")

// localHost reports whether host is a Unix socket directory or a loopback
// address.
func localHost(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// workPool is the pool of ingest: the work pool when opened, else the one
// pool.
func (db *DB) workPool() *pgxpool.Pool { return db.or(db.work) }

// mergePool is the mergers' pool: the merge pool when opened, else the
// one pool.
func (db *DB) mergePool() *pgxpool.Pool { return db.or(db.merge) }

// Reset drops every pooled connection of every pool (after the private
// server restarted).
func (db *DB) Reset() {
	for _, p := range db.pools() {
		p.Reset()
	}
}
