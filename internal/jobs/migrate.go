package jobs

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"go.uber.org/zap"
)

// Migrate returns the step that creates or upgrades River's tables
// (river_job, river_leader, river_queue, …) in tx. The caller runs it under
// the advisory lock of its own migrations (postgres.DB.Migrate), so two
// instances starting at once do not race.
func Migrate(log *zap.Logger) func(ctx context.Context, tx pgx.Tx) error {
	return func(ctx context.Context, tx pgx.Tx) error {
		m, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: riverLogger(log)})
		if err != nil {
			return err
		}
		res, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil)
		if err != nil {
			return fmt.Errorf("job runner migrations: %w", err)
		}
		if len(res.Versions) > 0 {
			log.Info("job runner migrations applied", zap.Int("count", len(res.Versions)))
		}
		return nil
	}
}
