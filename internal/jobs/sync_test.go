package jobs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
)

// priceFile is a LiteLLM file pricing every built-in model, so the
// mass-drop rule accepts it, at rates of its own.
func priceFile(t *testing.T) []byte {
	t.Helper()
	m := map[string]any{}
	for _, e := range pricing.Builtin().Entries() {
		m[e.Model] = map[string]any{"mode": "chat", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Two runners on one database: the periodic sync runs about once per
// interval in all, not once per interval per runner, and the instance that
// did not run it still picks the new catalogue up.
func TestThePeriodicSyncRunsOnceAcrossRunners(t *testing.T) {
	var fetches atomic.Int64
	file := priceFile(t)
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(file)
	}))
	defer src.Close()
	url := pgtest.NewDatabase(t)
	const interval = time.Second
	var cats [2]atomic.Pointer[pricing.Catalogue]
	var syncers [2]*catalogsync.Syncer
	for i := range 2 {
		db := openDB(t, url)
		syncers[i] = catalogsync.New(catalogsync.Options{Catalogue: &cats[i], Store: db, URL: src.URL,
			Interval: interval, Timeout: time.Second, MaxBytes: 1 << 20})
		syncers[i].Follow(200 * time.Millisecond)
		t.Cleanup(syncers[i].Stop)
		startRunner(t, Config{Pool: db.Pool, Mailer: &flakySender{}, Retry: fast, MailAttempts: 1,
			Sync: syncers[i], SyncInterval: interval, SyncTimeout: time.Second})
	}
	const window = 5 * time.Second
	time.Sleep(window)
	t.Logf("%d fetches in %s", fetches.Load(), window)
	// At start plus once a second: about 6; a sync per runner would be 12.
	if n := fetches.Load(); n < 3 || n > 8 {
		t.Fatalf("%d fetches in %s at a %s interval across two runners", n, window, interval)
	}
	for i := range 2 {
		if st := syncers[i].Status(); st.Mode != catalogsync.ModeNetwork || cats[i].Load().Source() != catalogsync.SourceNetwork {
			t.Errorf("runner %d serves %s (%s), want the synced catalogue", i, st.Mode, cats[i].Load().Source())
		}
	}
	if cats[0].Load().Version() != cats[1].Load().Version() {
		t.Errorf("the runners price with different catalogues")
	}

}
