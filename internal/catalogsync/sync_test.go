package catalogsync_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fixture is the LiteLLM snapshot; the test fails, not skips, without it.
func fixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "pricing", "litellm-subset-2026-07.json"))
	if err != nil {
		t.Fatalf("the pricing fixture is required: %v", err)
	}
	return data
}

// fixtureWith returns the fixture as a map, for variants.
func fixtureMap(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fixture(t), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// source is a real HTTP server whose answer the test switches.
type source struct {
	mu    sync.Mutex
	body  []byte
	code  int
	delay time.Duration
	hits  atomic.Int64
	srv   *httptest.Server
}

func newSource(t *testing.T, body []byte) *source {
	s := &source{body: body, code: 200}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		body, code, delay := s.body, s.code, s.delay
		s.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *source) set(body []byte, code int, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body, s.code, s.delay = body, code, delay
}

func newSyncer(url string, store catalogsync.Store) (*catalogsync.Syncer, *atomic.Pointer[pricing.Catalogue]) {
	var cat atomic.Pointer[pricing.Catalogue]
	return catalogsync.New(catalogsync.Options{Catalogue: &cat, Store: store, URL: url, Interval: time.Hour,
		Timeout: syncTimeout, MaxBytes: 8 << 20}), &cat
}

// syncTimeout bounds a test sync: long enough that fetching and checking
// the fixture never hits it on a loaded CI machine, short enough that the
// slow source's case (a delay well beyond it) stays quick.
const syncTimeout = 2 * time.Second

func TestSyncPutsTheFileInForceAndReportsChanges(t *testing.T) {
	src := newSource(t, fixture(t))
	s, cat := newSyncer(src.srv.URL, nil)
	if err := s.SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := cat.Load()
	st := s.Status()
	if c.Source() != catalogsync.SourceNetwork || c.Len() <= pricing.Builtin().Len() || st.Mode != catalogsync.ModeNetwork ||
		st.LastError != "" || st.LastSuccessAt.IsZero() || st.SyncedAt.IsZero() || st.Models != c.Len() || st.Version != c.Version() {
		t.Fatalf("after a good sync: %s %d models, status %+v", c.Source(), c.Len(), st)
	}
	// The fixture's own models are new, and the erratum model changed.
	changed := strings.Join(st.ChangedModels, ",")
	if !strings.Contains(changed, "gpt-5.6-luna") || !strings.Contains(changed, "gpt-4o-mini-2024-07-18") ||
		strings.Contains(changed, "claude-sonnet-4-5,") {
		t.Errorf("changed models: %v", st.ChangedModels)
	}
	// Built-in models the file lacks stay priced (Mistral is not in it).
	if _, ok := c.Lookup("mistral-large-2512"); !ok {
		t.Error("a built-in model disappeared")
	}
	if !s.UpdatedAt("gpt-5.6-luna").Equal(st.SyncedAt) || !s.UpdatedAt("claude-sonnet-4-5").Equal(catalogsync.BuiltinCheckedAt()) {
		t.Errorf("updated_at: gpt-5.6-luna %v sonnet-4-5 %v", s.UpdatedAt("gpt-5.6-luna"), s.UpdatedAt("claude-sonnet-4-5"))
	}
	// The same file again changes nothing.
	if err := s.SyncOnce(context.Background()); err != nil || cat.Load() != c || len(s.Status().ChangedModels) != 0 {
		t.Fatalf("second sync: %v, changed %v", err, s.Status().ChangedModels)
	}
}

func TestSyncFailuresKeepTheLastGoodCatalogue(t *testing.T) {
	src := newSource(t, fixture(t))
	s, cat := newSyncer(src.srv.URL, nil)
	if err := s.SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	good, success := cat.Load(), s.Status().LastSuccessAt
	ten := map[string]json.RawMessage{}
	for k, v := range fixtureMap(t) {
		if len(ten) < 10 && strings.HasPrefix(k, "claude") {
			ten[k] = v
		}
	}
	huge := make([]byte, 9<<20)
	for _, c := range []struct {
		name  string
		body  []byte
		code  int
		delay time.Duration
		why   string
	}{
		{"server error", []byte("oops"), 503, 0, "HTTP 503"},
		{"slow", fixture(t), 200, 3 * syncTimeout, "timeout"},
		{"garbage", []byte("<html>not json"), 200, 0, "not valid JSON"},
		{"not an object", []byte(`[1, 2, 3]`), 200, 0, "JSON object"},
		{"nothing priced", []byte(`{"dall-e-3": {"mode": "image_generation", "output_cost_per_image": 0.04}}`), 200, 0, "no entry"},
		{"mass drop", marshal(t, ten), 200, 0, "more than half"},
		{"too large", huge, 200, 0, "limit"},
	} {
		src.set(c.body, c.code, c.delay)
		err := s.SyncOnce(context.Background())
		st := s.Status()
		if err == nil || cat.Load() != good || !strings.Contains(st.LastError, c.why) || !st.LastSuccessAt.Equal(success) ||
			st.Mode != catalogsync.ModeNetwork || st.LastAttemptAt.Before(success) {
			t.Errorf("%s: err %v, last_error %q, catalogue kept %v", c.name, err, st.LastError, cat.Load() == good)
		}
	}
	src.srv.Close() // down
	if err := s.SyncOnce(context.Background()); err == nil || cat.Load() != good ||
		!strings.Contains(s.Status().LastError, "fetching the price file") {
		t.Errorf("down: %v %q", err, s.Status().LastError)
	}
}

func TestImportAppliesTheSameBounds(t *testing.T) {
	s, cat := newSyncer("", nil)
	ctx := context.Background()
	// Every text model with token rates is imported; every other entry is
	// skipped with a reason.
	rep, err := s.Import(ctx, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	text, reasons := 0, map[string]string{}
	for _, k := range rep.Skipped {
		reasons[k.Model] = k.Reason
	}
	for name, raw := range fixtureMap(t) {
		var e map[string]any
		_ = json.Unmarshal(raw, &e)
		mode, _ := e["mode"].(string)
		in, _ := e["input_cost_per_token"].(float64)
		out, _ := e["output_cost_per_token"].(float64)
		switch {
		case (mode == "chat" || mode == "completion" || mode == "responses") && in+out > 0:
			text++
			if got, ok := cat.Load().Lookup(name); !ok || got.Source != "litellm" {
				t.Errorf("%s not imported", name)
			}
		case reasons[name] == "":
			t.Errorf("%s (%s) skipped without a reason", name, mode)
		case mode == "image_generation" && !strings.Contains(reasons[name], "image"),
			name == "gpt-realtime-whisper" && !strings.Contains(reasons[name], "per second"):
			t.Errorf("%s: reason %q", name, reasons[name])
		}
	}
	if rep.Imported != text || cat.Load().Source() != catalogsync.SourceImport || s.Status().Mode != catalogsync.ModeImport {
		t.Fatalf("imported %d of %d text models; source %s", rep.Imported, text, cat.Load().Source())
	}

	// One negative rate skips that model and imports the rest.
	m := fixtureMap(t)
	m["gpt-5"] = json.RawMessage(`{"mode": "chat", "input_cost_per_token": -1.25e-06, "output_cost_per_token": 1e-05}`)
	rep, err = s.Import(ctx, marshal(t, m))
	if err != nil || rep.Imported != text-1 {
		t.Fatalf("negative rate: %+v %v", rep, err)
	}
	found := false
	for _, k := range rep.Skipped {
		found = found || (k.Model == "gpt-5" && strings.Contains(k.Reason, "negative"))
	}
	if !found {
		t.Errorf("gpt-5 not skipped as negative: %v", rep.Skipped)
	}
	// gpt-5 falls back to the built-in price rather than disappearing.
	if e, ok := cat.Load().Lookup("gpt-5"); !ok || e.Source != "builtin" {
		t.Errorf("gpt-5 after the bad file: %+v", e)
	}
}

func TestMassDropIsRefusedFromTheBuiltinCatalogueToo(t *testing.T) {
	s, cat := newSyncer("", nil)
	ten := map[string]json.RawMessage{}
	for k, v := range fixtureMap(t) {
		if len(ten) < 10 && strings.HasPrefix(k, "gpt") {
			ten[k] = v
		}
	}
	_, err := s.Import(context.Background(), marshal(t, ten))
	if err == nil || !strings.Contains(err.Error(), "mass-drop rule") || cat.Load() != pricing.Builtin() ||
		s.Status().Mode != catalogsync.ModeEmbedded {
		t.Fatalf("10-model file: %v", err)
	}
}

func TestBackgroundSyncRunsOnTheInterval(t *testing.T) {
	src := newSource(t, []byte("garbage"))
	var cat atomic.Pointer[pricing.Catalogue]
	s := catalogsync.New(catalogsync.Options{Catalogue: &cat, URL: src.srv.URL, Interval: 20 * time.Millisecond,
		Timeout: 20 * time.Millisecond, MaxBytes: 1 << 20})
	s.Start()
	deadline := time.Now().Add(5 * time.Second)
	for src.hits.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.Stop()
	st := s.Status()
	if src.hits.Load() < 3 || st.NextSyncAt.IsZero() || st.LastError == "" || cat.Load() != pricing.Builtin() {
		t.Fatalf("hits %d, status %+v", src.hits.Load(), st)
	}
	hits := src.hits.Load()
	time.Sleep(60 * time.Millisecond)
	if src.hits.Load() != hits {
		t.Fatal("the sync kept running after Stop")
	}
}
