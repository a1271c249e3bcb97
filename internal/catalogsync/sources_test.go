package catalogsync_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/pricing"
)

func genaiFixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "pricing", "genai-prices-subset-2026-11.json"))
	if err != nil {
		t.Fatalf("the genai-prices fixture is required: %v", err)
	}
	return data
}

func twoSourceSyncer(litellmURL, genaiURL string) (*catalogsync.Syncer, *atomic.Pointer[pricing.Catalogue]) {
	var cat atomic.Pointer[pricing.Catalogue]
	now := func() time.Time { return time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC) }
	return catalogsync.New(catalogsync.Options{Catalogue: &cat, URL: litellmURL, GenAIURL: genaiURL,
		Interval: time.Hour, Timeout: 500 * time.Millisecond, MaxBytes: 8 << 20, Now: now}), &cat
}

// Two sources that disagree on one model: the model keeps its current
// price, the disagreement is listed (model, field, each source's value),
// and everything the sources agree on is put in force.
func TestTwoSourcesDisagreeingKeepTheCurrentPrice(t *testing.T) {
	m := fixtureMap(t)
	// LiteLLM's gpt-5 at $2 input instead of $1.25.
	var gpt5 map[string]any
	if err := json.Unmarshal(m["gpt-5"], &gpt5); err != nil {
		t.Fatal(err)
	}
	gpt5["input_cost_per_token"] = 2e-06
	m["gpt-5"] = marshal(t, gpt5)
	lite, genai := newSource(t, marshal(t, m)), newSource(t, genaiFixture(t))
	s, cat := twoSourceSyncer(lite.srv.URL, genai.srv.URL)
	if err := s.SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, st := cat.Load(), s.Status()
	if e, _ := c.Lookup("gpt-5"); e.Base.Input != 1_250_000_000_000 || e.Source != "builtin" {
		t.Errorf("gpt-5 must keep its current $1.25: %+v", e.Base)
	}
	var found bool
	for _, d := range st.Disagreements {
		if d.Model == "gpt-5" && d.Field == "input" && d.Values["litellm"] == 2_000_000_000_000 &&
			d.Values["genai-prices"] == 1_250_000_000_000 {
			found = true
		}
	}
	if !found || c.Source() != "litellm+genai-prices" || len(st.SourceURLs) != 2 || st.LastError != "" {
		t.Fatalf("status %+v source %s", st, c.Source())
	}
	// The July snapshot's GPT-5.6 Luna price (before the cut of 2026-07-30)
	// disagrees with genai-prices' price in force now: the built-in entry,
	// with its dated periods, stays.
	if e, _ := c.Lookup("gpt-5.6-luna"); len(e.Periods) == 0 || e.Source != "builtin" {
		t.Errorf("gpt-5.6-luna must keep the built-in periods: %+v", e)
	}
	// A model LiteLLM lacks comes from genai-prices with its peak hours.
	if e, ok := c.Lookup("deepseek-flash"); !ok || len(e.Periods) == 0 {
		t.Errorf("deepseek-flash: %+v", e)
	}
}

// A failing second source never fails the service: LiteLLM's file still
// applies and the status names the source that failed.
func TestOneSourceDownStillSyncsTheOther(t *testing.T) {
	lite, genai := newSource(t, fixture(t)), newSource(t, genaiFixture(t))
	genai.set([]byte("oops"), 503, 0)
	s, cat := twoSourceSyncer(lite.srv.URL, genai.srv.URL)
	err := s.SyncOnce(context.Background())
	st := s.Status()
	if err == nil || !strings.Contains(st.LastError, "HTTP 503") || cat.Load().Source() != catalogsync.SourceNetwork {
		t.Fatalf("err %v status %+v source %s", err, st, cat.Load().Source())
	}
	// Both down: the catalogue in force stays.
	before := cat.Load()
	lite.set([]byte("{"), 200, 0)
	if err := s.SyncOnce(context.Background()); err == nil || cat.Load() != before {
		t.Fatalf("both sources bad: %v", err)
	}
}

// The import path accepts a genai-prices file as well: detected, parsed and
// held to the same rules (the 33-model fixture is refused by the mass-drop
// rule against the built-in table), and an import keeps built-in aliases.
func TestImportDetectsGenAIFormat(t *testing.T) {
	s, cat := newSyncer("", nil)
	_, err := s.Import(context.Background(), genaiFixture(t))
	if err == nil || !strings.Contains(err.Error(), "mass-drop rule: the file prices only") {
		t.Fatalf("a 33-model genai-prices file against the built-in table: %v", err)
	}
	m := fixtureMap(t)
	for k := range m {
		if strings.HasPrefix(k, "o3") {
			delete(m, k)
		}
	}
	if _, err := s.Import(context.Background(), marshal(t, m)); err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Load().Lookup("codestral-latest"); !ok {
		t.Error("built-in aliases must survive an import")
	}
	entries, _, format, err := pricing.ParseAny(genaiFixture(t))
	if err != nil || format != pricing.FormatGenAI || len(entries) != 33 {
		t.Errorf("ParseAny: %s %d %v", format, len(entries), err)
	}
}
