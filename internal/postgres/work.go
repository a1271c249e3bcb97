package postgres

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ingest and the mergers can saturate the server's cores for as long as
// calls pour in, and every report, budget-state poll and page then waits
// for a core behind them: on two cores, reports that take milliseconds
// took seconds, and a budget-state poll hundreds of milliseconds. Their
// work is throughput work, the reads are latency work, so they run on a
// pool of their own (OpenWork) whose server processes, when PostgreSQL
// runs on this machine, get a lower CPU priority (a higher nice value):
// the kernel then runs a read's process first whenever both want a core,
// and gives ingest every core nobody else wants, so an idle server
// ingests as fast as before.

// OpenWork opens the pool ingest and the mergers use, of at most maxConns
// connections to url, each of whose server processes gets nice (0: left
// as it is; 1–19: lower priority) when the server is a local PostgreSQL
// (a Unix socket or a loopback address, a process named postgres). Where
// the priority cannot be set (a remote server, no permission) the pool
// works all the same; what happened is reported through reniced, called
// once per connection (nil: not reported).
func (db *DB) OpenWork(ctx context.Context, url string, maxConns int32, nice int, reniced func(error)) error {
	cfg, err := poolConfig(url, maxConns)
	if err != nil {
		return err
	}
	local := localHost(cfg.ConnConfig.Host)
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if err := useFastArrays(ctx, conn); err != nil {
			return err
		}
		if nice > 0 {
			err := errRemote
			if local {
				err = renice(conn.PgConn().PID(), nice)
			}
			if reniced != nil {
				reniced(err)
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	db.work = pool
	return nil
}

// errRemote: the server does not run on this machine, so its processes'
// priority is not ours to set.
var errRemote = errors.New("the database server is not on this machine: its processes keep their priority")

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

// workPool is the pool of ingest and the mergers: the work pool when
// opened, else the one pool.
func (db *DB) workPool() *pgxpool.Pool {
	if db.work != nil {
		return db.work
	}
	return db.Pool
}

// Reset drops every pooled connection of both pools (after the private
// server restarted).
func (db *DB) Reset() {
	db.Pool.Reset()
	if db.work != nil {
		db.work.Reset()
	}
}
