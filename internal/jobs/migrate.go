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
// (river_job, river_leader, river_queue, …) on conn. The caller runs it
// under the advisory lock of its own migrations (postgres.DB.Migrate), so
// two instances starting at once do not race. Each River migration gets a
// transaction of its own: a later one uses an enum value an earlier one
// adds, which PostgreSQL refuses within one transaction.
func Migrate(log *zap.Logger) func(ctx context.Context, conn *pgx.Conn) error {
	return func(ctx context.Context, conn *pgx.Conn) error {
		m, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: riverLogger(log)})
		if err != nil {
			return err
		}
		applied := 0
		for {
			var res *rivermigrate.MigrateResult
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) (err error) {
				// MigrateTx is deprecated because several migrations in one
				// transaction can fail; MaxSteps 1 gives each its own, and
				// Migrate would need a pool where this holds one locked conn.
				//lint:ignore SA1019 each call applies one migration in its own transaction
				res, err = m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
				return err
			})
			if err != nil {
				return fmt.Errorf("job runner migrations: %w", err)
			}
			if len(res.Versions) == 0 {
				break
			}
			applied += len(res.Versions)
		}
		if applied > 0 {
			log.Info("job runner migrations applied", zap.Int("count", applied))
		}
		return nil
	}
}
