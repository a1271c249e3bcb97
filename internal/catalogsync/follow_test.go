package catalogsync_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/catalogsync"
)

// An import on one instance reaches another through Refresh, which loads
// without saving (no two instances take turns re-saving).
func TestRefreshLoadsWhatAnotherInstanceSaved(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	one, cat1 := newSyncer("", db)
	two, cat2 := newSyncer("", db)
	for _, s := range []*catalogsync.Syncer{one, two} {
		if err := s.Restore(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := one.Import(ctx, fixture(t)); err != nil {
		t.Fatal(err)
	}
	if cat2.Load().Version() == cat1.Load().Version() {
		t.Fatal("the second instance has the import before any refresh")
	}
	saved, _, _ := db.LoadCatalogue(ctx)
	if err := two.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	st := two.Status()
	if cat2.Load().Version() != cat1.Load().Version() || st.Mode != catalogsync.ModeImport || !st.SyncedAt.Equal(one.Status().SyncedAt) {
		t.Fatalf("after refresh: %+v", st)
	}
	again, _, _ := db.LoadCatalogue(ctx)
	if !again.ActivatedAt.Equal(saved.ActivatedAt) || again.Catalogue.Version() != saved.Catalogue.Version() {
		t.Errorf("refresh re-saved the catalogue")
	}
}

// Follow polls in the background and stops with Stop.
func TestFollowPicksUpAnImport(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	one, cat1 := newSyncer("", db)
	two, cat2 := newSyncer("", db)
	two.Follow(50 * time.Millisecond)
	defer two.Stop()
	if _, err := one.Import(ctx, fixture(t)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for cat2.Load().Version() != cat1.Load().Version() {
		if time.Now().After(deadline) {
			t.Fatal("the follower never loaded the import")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
