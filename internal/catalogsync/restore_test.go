package catalogsync_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
)

func openDB(t *testing.T) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// A restart keeps the last good catalogue, its mode, its report and when
// each model changed.
func TestRestartKeepsTheLastGoodCatalogue(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	first, cat1 := newSyncer("", db)
	if err := first.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CatalogueVersion(ctx, pricing.Builtin().Version()); err != nil {
		t.Fatalf("the built-in version is not on record: %v", err)
	}
	if _, err := first.Import(ctx, fixture(t)); err != nil {
		t.Fatal(err)
	}
	before := first.Status()

	second, cat2 := newSyncer("", db)
	if cat2.Load() != pricing.Builtin() {
		t.Fatal("a new syncer should start from the built-in prices")
	}
	if err := second.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	after := second.Status()
	if cat2.Load().Version() != cat1.Load().Version() || after.Mode != catalogsync.ModeImport ||
		!after.SyncedAt.Equal(before.SyncedAt) || len(after.ChangedModels) != len(before.ChangedModels) {
		t.Fatalf("after restart: %+v\nbefore: %+v", after, before)
	}
	if !second.UpdatedAt("claude-sonnet-5").Equal(first.UpdatedAt("claude-sonnet-5")) {
		t.Errorf("updated_at lost: %v vs %v", second.UpdatedAt("claude-sonnet-5"), first.UpdatedAt("claude-sonnet-5"))
	}
	if _, _, err := db.CatalogueVersion(ctx, cat1.Load().Version()); err != nil {
		t.Fatalf("the imported version is not on record: %v", err)
	}
}

// A catalogue saved by an older binary is re-merged over this binary's
// built-in prices: the file's entries stay, corrected built-in ones apply.
func TestRestoreRemergesOverNewBuiltinPrices(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	old := pricing.Builtin().Entries()
	for i := range old {
		if old[i].Model == "mistral-large-2512" {
			old[i].Base.Input = 1 // a built-in price this binary has since corrected
		}
	}
	file := []pricing.Entry{{Model: "acme-1", Provider: "acme", Mode: "chat",
		Base: pricing.Rates{Input: 5, Output: 6}, Source: "litellm"}}
	saved := pricing.Merge(pricing.NewCatalogue(old, "old"), file, catalogsync.SourceNetwork)
	at := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	if err := db.SaveCatalogue(ctx, postgres.CatalogueState{Catalogue: saved, Mode: postgres.ModeNetwork, ActivatedAt: at}); err != nil {
		t.Fatal(err)
	}
	s, cat := newSyncer("", db)
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	want := pricing.Merge(pricing.Builtin(), file, catalogsync.SourceNetwork)
	if cat.Load().Version() != want.Version() || s.Status().Mode != catalogsync.ModeNetwork {
		t.Fatalf("restored %s, want %s", cat.Load().Version(), want.Version())
	}
	if st, _, _ := db.LoadCatalogue(ctx); st.Catalogue.Version() != want.Version() ||
		len(st.ChangedModels) != 1 || st.ChangedModels[0] != "mistral-large-2512" {
		t.Fatalf("the re-merged catalogue was not saved: %s %v", st.Catalogue.Version(), st.ChangedModels)
	}
}

// A database that fails while saving refuses the import and keeps the
// catalogue in force.
func TestImportIsRefusedWhenItCannotBeSaved(t *testing.T) {
	db := openDB(t)
	s, cat := newSyncer("", db)
	db.Close()
	_, err := s.Import(context.Background(), fixture(t))
	if err == nil || cat.Load() != pricing.Builtin() || s.Status().Mode != catalogsync.ModeEmbedded {
		t.Fatalf("import into a closed database: %v, catalogue %s", err, cat.Load().Version())
	}
}
