package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Catalogue modes: how the catalogue in force got there.
const (
	ModeEmbedded = "embedded" // the built-in prices
	ModeNetwork  = "network"  // a sync from the configured URL
	ModeImport   = "import"   // an admin's upload
)

// CatalogueState is a catalogue put in force and how it got there.
type CatalogueState struct {
	Catalogue   *pricing.Catalogue
	Mode        string
	ActivatedAt time.Time
	// UpdatedAt maps each model to when its entry last changed.
	UpdatedAt map[string]time.Time
	// ChangedModels is the report of the update that put it in force.
	ChangedModels []string
}

// SaveCatalogue records st's catalogue under its version (once per version)
// and makes it the catalogue in force, in one transaction.
func (db *DB) SaveCatalogue(ctx context.Context, st CatalogueState) error {
	entries, err := json.Marshal(toStored(st.Catalogue.Entries()))
	if err != nil {
		return err
	}
	changed := st.ChangedModels
	if changed == nil {
		changed = []string{}
	}
	updated, _ := json.Marshal(st.UpdatedAt)
	changedJSON, _ := json.Marshal(changed)
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if err := saveVersion(ctx, tx, st.Catalogue, entries); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
INSERT INTO catalogue_current (singleton, version, mode, activated_at, updated_at, changed_models)
VALUES (true, $1, $2, $3, $4::jsonb, $5::jsonb)
ON CONFLICT (singleton) DO UPDATE SET version = excluded.version, mode = excluded.mode,
  activated_at = excluded.activated_at, updated_at = excluded.updated_at,
  changed_models = excluded.changed_models`,
			st.Catalogue.Version(), st.Mode, st.ActivatedAt, string(updated), string(changedJSON))
		return err
	})
	return translate(err, "catalogue")
}

// SaveCatalogueVersion records a catalogue's entries under its version
// without putting it in force: the built-in catalogue prices events before
// any sync, so its rates must be on record too.
func (db *DB) SaveCatalogueVersion(ctx context.Context, cat *pricing.Catalogue) error {
	entries, err := json.Marshal(toStored(cat.Entries()))
	if err != nil {
		return err
	}
	return translate(saveVersion(ctx, db.Pool, cat, entries), "catalogue version")
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func saveVersion(ctx context.Context, x execer, cat *pricing.Catalogue, entries []byte) error {
	_, err := x.Exec(ctx, `INSERT INTO catalogue_versions (version, source, models, entries)
VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (version) DO NOTHING`,
		cat.Version(), cat.Source(), cat.Len(), string(entries))
	return err
}

// LoadCatalogue returns the catalogue in force; ok is false when none was
// ever saved. A stored catalogue whose content no longer hashes to its
// version (an entry field added since) is still returned, rebuilt.
func (db *DB) LoadCatalogue(ctx context.Context) (st CatalogueState, ok bool, err error) {
	var version, source, entries, updated, changed string
	err = db.Pool.QueryRow(ctx, `
SELECT c.version, v.source, v.entries::text, c.mode, c.activated_at, c.updated_at::text, c.changed_models::text
FROM catalogue_current c JOIN catalogue_versions v USING (version)`).Scan(
		&version, &source, &entries, &st.Mode, &st.ActivatedAt, &updated, &changed)
	if err == pgx.ErrNoRows {
		return st, false, nil
	}
	if err != nil {
		return st, false, translate(err, "catalogue")
	}
	if st.Catalogue, err = decodeCatalogue(entries, source); err != nil {
		return st, false, fmt.Errorf("catalogue %s: %w", version, err)
	}
	if err := json.Unmarshal([]byte(updated), &st.UpdatedAt); err != nil {
		return st, false, fmt.Errorf("catalogue %s updated_at: %w", version, err)
	}
	if err := json.Unmarshal([]byte(changed), &st.ChangedModels); err != nil {
		return st, false, fmt.Errorf("catalogue %s changed_models: %w", version, err)
	}
	st.ActivatedAt = st.ActivatedAt.UTC()
	return st, true, nil
}

// CatalogueVersion returns the catalogue an event's price_version names,
// and when it was first recorded, so the rates that priced any stored event
// can be looked up.
func (db *DB) CatalogueVersion(ctx context.Context, version string) (*pricing.Catalogue, time.Time, error) {
	var source, entries string
	var created time.Time
	err := db.Pool.QueryRow(ctx, `SELECT source, entries::text, created_at FROM catalogue_versions WHERE version = $1`,
		version).Scan(&source, &entries, &created)
	if err != nil {
		return nil, time.Time{}, translate(err, "catalogue version")
	}
	cat, err := decodeCatalogue(entries, source)
	return cat, created.UTC(), err
}

func decodeCatalogue(entries, source string) (*pricing.Catalogue, error) {
	var stored []storedEntry
	if err := json.Unmarshal([]byte(entries), &stored); err != nil {
		return nil, err
	}
	return pricing.NewCatalogue(fromStored(stored), source), nil
}
