package costapiextension

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// maxReplicaWait bounds replica_wait: a report waits that long for a
// lagging replica before it reads the primary, so a long wait makes every
// report slow while the replica is behind.
const maxReplicaWait = 5 * time.Second

// validateReplica checks replica_url and replica_wait.
func (c *Config) validateReplica() []error {
	var errs []error
	if c.ReplicaURL != "" {
		if err := postgres.CheckURL(string(c.ReplicaURL)); err != nil {
			errs = append(errs, fmt.Errorf("replica_url: %w", err))
		}
		if c.Mode == ModeMirror {
			errs = append(errs, errors.New("replica_url: a mirror has no database"))
		}
	}
	if c.ReplicaWait < 0 || c.ReplicaWait > maxReplicaWait {
		errs = append(errs, fmt.Errorf("replica_wait: must be between 0 (%s) and %s, got %s",
			postgres.DefaultReplicaWait, maxReplicaWait, c.ReplicaWait))
	}
	return errs
}

// openReplica points the reports at the read replica when replica_url is
// set; the replica's pool is as large as the primary's read pool. Each
// change of the replica's state is logged once.
func (e *Extension) openReplica(db *postgres.DB, log *zap.Logger) error {
	if e.cfg.ReplicaURL == "" {
		return nil
	}
	err := db.OpenReplica(string(e.cfg.ReplicaURL), postgres.ReplicaOptions{MaxConns: e.cfg.MaxConns,
		Wait: e.cfg.ReplicaWait, Report: func(err error) {
			if err != nil {
				log.Warn("read replica set aside: reports read the primary until it answers again", zap.Error(err))
			} else {
				log.Info("read replica answers again: reports read it once it has caught up")
			}
		}})
	if err != nil {
		return fmt.Errorf("replica_url: %w", err)
	}
	log.Info("reports read the replica once it has replayed what they must include",
		zap.Duration("replica_wait", max(e.cfg.ReplicaWait, 0)))
	return nil
}
