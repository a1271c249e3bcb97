package costapiextension

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// upgradeData brings the data of an older database up to what the
// migrations just applied expect, once each, before the mergers and the
// server start: cache savings and run tables of events stored before they
// existed, and the repair of projects that stored calls beyond the bounds
// (migration 0026). A failed backfill stops the start; a failed repair
// does not (see below).
func upgradeData(ctx context.Context, db *postgres.DB, log *zap.Logger) error {
	// Events stored before the cache-savings columns get theirs (once).
	backfilled, err := db.BackfillSavings(ctx)
	if err != nil {
		return fmt.Errorf("cache savings backfill: %w", err)
	}
	if backfilled > 0 {
		log.Info("cache savings computed for older events", zap.Int64("events", backfilled))
	}
	// Traced events stored before the run tables get their runs (once).
	if n, err := db.BackfillRuns(ctx); err != nil {
		return fmt.Errorf("runs backfill: %w", err)
	} else if n > 0 {
		log.Info("run tables filled for older events", zap.Int("projects", n))
	}
	// Projects that stored calls beyond the bounds before migration 0026
	// get their rollups, runs and totals back from the calls that remain.
	// A failure leaves them listed for the next start and llmcost serves:
	// their batches are refused with a clear reason at worst.
	if n, err := db.RepairBounds(ctx); err != nil {
		log.Error("bounds repair: will try again at the next start", zap.Int("projects_repaired", n), zap.Error(err))
	} else if n > 0 {
		log.Info("projects repaired: calls beyond the bounds moved to events_refused", zap.Int("projects", n))
	}
	return nil
}
