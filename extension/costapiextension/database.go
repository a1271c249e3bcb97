package costapiextension

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// Values of database_pooler.
const (
	PoolerNone        = "none"
	PoolerTransaction = "transaction"
)

// pooled reports whether database_url goes through a transaction pooler.
func (c *Config) pooled() bool { return c.DatabasePooler == PoolerTransaction }

func (c *Config) validateDatabase() []error {
	var errs []error
	switch c.DatabasePooler {
	case "", PoolerNone, PoolerTransaction:
	default:
		errs = append(errs, errors.New("database_pooler: must be none or transaction, got "+c.DatabasePooler))
	}
	if c.pooled() && c.DatabaseURL == "" && c.Mode != ModeMirror {
		errs = append(errs, errors.New("database_pooler: needs database_url (the pooler's address); the private PostgreSQL has none"))
	}
	if c.DatabaseDirectURL != "" && !c.pooled() {
		errs = append(errs, errors.New("database_direct_url: only with database_pooler: transaction (without a pooler, database_url is direct)"))
	}
	return errs
}

// openDB opens the store's pools on url: the reads' and the quick pool,
// ingest's and the mergers', each through the pooler when there is one.
func (e *Extension) openDB(ctx context.Context, url string) error {
	log := e.set.Logger
	var err error
	if e.cfg.pooled() {
		e.db, err = postgres.OpenPooled(ctx, url, string(e.cfg.DatabaseDirectURL), e.cfg.MaxConns)
	} else {
		e.db, err = postgres.Open(ctx, url, e.cfg.MaxConns)
	}
	if err != nil {
		return err
	}
	db := e.db
	db.RawRetentionDays, db.RollupRetentionDays = e.cfg.RawRetentionDays, e.cfg.RollupRetentionDays
	if err := db.OpenWork(ctx, url, e.cfg.Backpressure.concurrentWrites(), e.cfg.WorkNice, e.renicedOnce(log, "ingest", e.cfg.WorkNice)); err != nil {
		return err
	}
	// The rollup, run and alert loops hold one connection each.
	// The rollup, run and alert loops hold one connection each, and a
	// deleted project's purge (one at a time per instance) the fourth.
	if err := db.OpenMerge(ctx, url, 4, e.cfg.MergeNice, e.renicedOnce(log, "the mergers", e.cfg.MergeNice)); err != nil {
		return err
	}
	if db.Pooled() {
		// The timeouts a direct connection sets at its start must be the
		// role's defaults behind a pooler, which refuses them at start.
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if missing, err := db.PendingSettings(sctx); err != nil {
			log.Warn("could not read the pooled sessions' settings", zap.Error(err))
		} else if len(missing) > 0 {
			log.Warn("through the pooler, llmcost's sessions lack its settings: set them as the role's defaults "+
				"(ALTER ROLE <user> IN DATABASE <database> SET …; docs/scale.md)", zap.String("settings", strings.Join(missing, ", ")))
		}
	}
	return nil
}

// cacheKeys reuses authenticated API keys for a minute, emptied by every
// rotation or project deletion through migration 0016's NOTIFY, heard on
// a connection that LISTENs: behind a transaction pooler only on the
// direct URL, else the cache stays off and every key is read.
func (e *Extension) cacheKeys() {
	log := e.set.Logger
	if !e.db.CanListen() {
		log.Info("API key cache off: behind a transaction pooler it needs database_direct_url (LLMCOST_DATABASE_DIRECT_URL) to LISTEN on")
		return
	}
	e.db.CacheAPIKeys(0, func(live bool, err error) {
		if live {
			log.Debug("API key cache on: listening for key changes")
		} else {
			log.Warn("API key cache off until the listening connection is back", zap.Error(err))
		}
	})
}
