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
// (river_job, river_leader, river_queue, …): each call applies at most one
// River migration in tx and returns how many it applied. The caller
// (postgres.DB.Migrate) calls it until it applies none, each time in a
// transaction of its own under the advisory lock of its own migrations, so
// two instances starting at once do not race. One migration a transaction:
// a later one uses an enum value an earlier one adds, which PostgreSQL
// refuses within one transaction.
func Migrate(log *zap.Logger) func(ctx context.Context, tx pgx.Tx) (int, error) {
	return func(ctx context.Context, tx pgx.Tx) (int, error) {
		m, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: riverLogger(log)})
		if err != nil {
			return 0, err
		}
		// MigrateTx is deprecated because several migrations in one
		// transaction can fail; MaxSteps 1 gives each its own.
		//lint:ignore SA1019 each call applies one migration in its own transaction
		res, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
		if err != nil {
			return 0, fmt.Errorf("job runner migrations: %w", err)
		}
		if len(res.Versions) > 0 {
			log.Info("job runner migration applied", zap.Int("version", res.Versions[0].Version))
		}
		return len(res.Versions), nil
	}
}
