package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Through PgBouncer in transaction pooling mode, each transaction (and
// each statement outside one) may run on a different server connection,
// and a server connection serves other clients in between. So nothing
// may rely on a session outliving a transaction (docs/scale.md):
//
//   - Named prepared statements: pgx's default exec mode prepares each
//     statement once per connection under a name, which another server
//     connection does not know ("prepared statement … does not exist",
//     "… already exists"; PgBouncer tracks them only from 1.21, with
//     max_prepared_statements). Pooled connections use pgx's
//     QueryExecModeCacheDescribe: the statement's description is cached
//     on the client, and every execution sends its own unnamed Parse with
//     Bind and Execute in one message train, binary formats kept.
//     (QueryExecModeDescribeExec is not safe: it describes in one round
//     trip and binds the unnamed statement in the next, which may reach
//     another server connection.) A URL naming default_query_exec_mode
//     keeps its own.
//   - Startup parameters: PgBouncer refuses any it does not track
//     (lock_timeout, statement_timeout, jit: "unsupported startup
//     parameter"), so pooled connections send none; those settings come
//     from the role's or the database's defaults (ALTER ROLE … SET), which
//     PendingSettings checks.
//   - LISTEN: a notification reaches the server connection that listened,
//     which is not the client's for long. The key cache listens on the
//     direct URL, or is off.
//   - Session advisory locks: Migrate takes transaction-level ones.
//   - Process priority (OpenWork, OpenMerge): left alone.

// OpenPooled is Open for a url that reaches PostgreSQL through a
// transaction pooler (PgBouncer with pool_mode = transaction). directURL,
// when not empty, reaches the same database directly; llmcost keeps one
// connection on it, for the key cache's LISTEN. OpenWork and OpenMerge on
// the returned DB open pooled connections too.
func OpenPooled(ctx context.Context, url, directURL string, maxConns int32) (*DB, error) {
	db := &DB{pooled: true}
	if directURL != "" {
		cfg, err := (&DB{}).poolConfig(directURL, 1)
		if err != nil {
			return nil, fmt.Errorf("direct %w", err)
		}
		db.direct = cfg.ConnConfig
	}
	return open(ctx, db, url, maxConns)
}

// pooledConfig makes cfg fit a transaction pooler: no startup parameters
// of llmcost's, no named prepared statements unless the URL asks for a
// mode of its own.
func pooledConfig(cfg *pgx.ConnConfig, url string) {
	if !strings.Contains(url, "default_query_exec_mode") {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
}

// Pooled reports whether the DB reaches PostgreSQL through a transaction
// pooler.
func (db *DB) Pooled() bool { return db.pooled }

// CanListen reports whether CacheAPIKeys has a connection it may LISTEN
// on: any but a pooled one without a direct URL.
func (db *DB) CanListen() bool { return !db.pooled || db.direct != nil }

// listenConfig is the configuration of the key cache's LISTEN connection.
func (db *DB) listenConfig() *pgx.ConnConfig {
	if db.pooled {
		return db.direct.Copy()
	}
	return db.Pool.Config().ConnConfig.Copy()
}

// PendingSettings lists, as "name = value", llmcost's session settings
// that a pooled connection's server session does not have: the startup
// parameters a direct connection sends, which through a pooler must be
// the role's or the database's defaults instead. Nil when not pooled.
func (db *DB) PendingSettings(ctx context.Context) ([]string, error) {
	if !db.pooled {
		return nil, nil
	}
	var missing []string
	for _, s := range settings {
		var have string
		err := db.Pool.QueryRow(ctx, `SELECT setting FROM pg_settings WHERE name = $1`, s.name).Scan(&have)
		if err != nil {
			return nil, translate(err, "setting")
		}
		if have != s.setting {
			missing = append(missing, s.name+" = '"+s.value+"'")
		}
	}
	return missing, nil
}
