package jobs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
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
	var mu sync.Mutex
	var fetches []time.Time
	file := priceFile(t)
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		fetches = append(fetches, time.Now())
		mu.Unlock()
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
	// Wait for three fetches (bounded): a loaded machine may schedule the
	// periodic job late, which says nothing about running it twice.
	start := time.Now()
	var times []time.Time
	for deadline := start.Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		times = append(times[:0], fetches...)
		mu.Unlock()
		if len(times) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	onePerInterval(t, times, time.Since(start), interval)
	for i := range 2 {
		if st := syncers[i].Status(); st.Mode != catalogsync.ModeNetwork || cats[i].Load().Source() != catalogsync.SourceNetwork {
			t.Errorf("runner %d serves %s (%s), want the synced catalogue", i, st.Mode, cats[i].Load().Source())
		}
	}
	if cats[0].Load().Version() != cats[1].Load().Version() {
		t.Errorf("the runners price with different catalogues")
	}

}

// onePerInterval fails unless the fetches look like one schedule: at most
// one per interval (plus the one at start), never two within half an
// interval, as two schedules out of phase would be.
func onePerInterval(t *testing.T, times []time.Time, window, interval time.Duration) {
	t.Helper()
	if n, most := len(times), int(window/interval)+2; n < 2 || n > most {
		t.Fatalf("%d fetches in %s at a %s interval, want 2..%d", n, window, interval, most)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < interval/2 {
			t.Fatalf("two fetches %s apart at a %s interval: two schedules?", gap, interval)
		}
	}
}
