package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// CatalogueInForce returns the version of the catalogue in force, cheaply:
// every instance polls it to notice a catalogue another instance put in
// force. ok is false when none was ever saved.
func (db *DB) CatalogueInForce(ctx context.Context) (version string, ok bool, err error) {
	err = db.Pool.QueryRow(ctx, `SELECT version FROM catalogue_current`).Scan(&version)
	if err == pgx.ErrNoRows {
		return "", false, nil
	}
	if err != nil {
		return "", false, translate(err, "catalogue")
	}
	return version, true, nil
}
