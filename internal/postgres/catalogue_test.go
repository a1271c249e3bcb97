package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

func TestCatalogueRoundTripKeepsEveryRate(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, ok, err := db.LoadCatalogue(ctx); ok || err != nil {
		t.Fatalf("fresh database: ok %v err %v", ok, err)
	}
	// An overlay with a tier, unpublished cache rates and no limits.
	cat := pricing.Merge(pricing.Builtin(), []pricing.Entry{{Model: "acme-9", Provider: "acme", Mode: "chat",
		Base:        pricing.Rates{Input: 123456789, Output: 987654321, CacheRead: 1, HasCacheRead: true},
		LongContext: &pricing.Tier{ThresholdTokens: 128000, Rates: pricing.Rates{Input: 2, Output: 3}},
		Source:      "litellm"}}, "import")
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	st := postgres.CatalogueState{Catalogue: cat, Mode: postgres.ModeImport, ActivatedAt: at,
		UpdatedAt: map[string]time.Time{"acme-9": at}, ChangedModels: []string{"acme-9"}}
	if err := db.SaveCatalogue(ctx, st); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.LoadCatalogue(ctx)
	if err != nil || !ok {
		t.Fatalf("load: %v %v", ok, err)
	}
	if got.Catalogue.Version() != cat.Version() || got.Mode != postgres.ModeImport || !got.ActivatedAt.Equal(at) ||
		!got.UpdatedAt["acme-9"].Equal(at) || !slices.Equal(got.ChangedModels, []string{"acme-9"}) {
		t.Fatalf("loaded %+v (version %s), saved version %s", got, got.Catalogue.Version(), cat.Version())
	}
	if pricing.ChangedModels(cat, got.Catalogue) != nil {
		t.Fatalf("entries changed in the round trip: %v", pricing.ChangedModels(cat, got.Catalogue))
	}
	// Periods (dated, daily windows, weekdays only) and aliases survive too.
	ds, _ := got.Catalogue.Lookup("deepseek-v4-flash")
	if ds.Model != "deepseek-flash" || len(ds.Periods) != 15 || !ds.Periods[4].HasWindow || !ds.Periods[4].WeekdaysOnly ||
		ds.Periods[4].DayStart != 60 || ds.Periods[2].WeekdaysOnly || !ds.Periods[2].HasWindow ||
		!ds.Periods[1].From.Equal(time.Date(2026, 8, 16, 16, 0, 0, 0, time.UTC)) {
		t.Fatalf("deepseek-flash periods after the round trip: %+v", ds)
	}

	// Putting the built-in catalogue in force replaces the current row and
	// keeps the import on record for the events it priced.
	if err := db.SaveCatalogue(ctx, postgres.CatalogueState{Catalogue: pricing.Builtin(), Mode: postgres.ModeEmbedded,
		ActivatedAt: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.LoadCatalogue(ctx); got.Catalogue.Version() != pricing.Builtin().Version() || got.ChangedModels == nil {
		t.Fatalf("current after the second save: %s %v", got.Catalogue.Version(), got.ChangedModels)
	}
	old, _, err := db.CatalogueVersion(ctx, cat.Version())
	if err != nil || old.Version() != cat.Version() {
		t.Fatalf("version look-up: %v", err)
	}
	if e, ok := old.Lookup("acme-9"); !ok || e.Base.Input != 123456789 || e.LongContext.ThresholdTokens != 128000 {
		t.Fatalf("acme-9 from the stored version: %+v", e)
	}
	if _, _, err := db.CatalogueVersion(ctx, "nope-00000000"); apierr.As(err).Code != apierr.NotFound {
		t.Fatalf("unknown version: %v", err)
	}
	// Saving a version twice is harmless.
	if err := db.SaveCatalogueVersion(ctx, cat); err != nil {
		t.Fatal(err)
	}
}
