package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func ev(id, model string, in, out int, extra map[string]any) map[string]any {
	e := map[string]any{"event_id": id, "agent_name": "agent-a", "model": model,
		"input_tokens": in, "output_tokens": out, "timestamp": time.Now().UTC().Format(time.RFC3339)}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// listed returns the project's events keyed by event_id.
func (s *service) listed(t *testing.T, key string) map[string]map[string]any {
	t.Helper()
	r := s.call(t, "GET", "/v1/events?limit=1000", key, nil).must(t, http.StatusOK)
	out := map[string]map[string]any{}
	for _, e := range r.Body["events"].([]any) {
		m := e.(map[string]any)
		out[m["event_id"].(string)] = m
	}
	return out
}

func TestFirstSessionPricesEveryKindOfCall(t *testing.T) {
	s := start(t, nil)
	_, projectID, key := s.account(t)
	s.call(t, "GET", "/v1/projects/me", key, nil).must(t, http.StatusOK)

	batch := map[string]any{"project_id": projectID, "events": []any{
		ev("plain", "claude-sonnet-4-5", 1000, 500, nil),
		ev("cached", "claude-sonnet-4-5-20250929", 10000, 1000, map[string]any{"cached_tokens": 6000, "cache_write_tokens": 2000}),
		ev("cached1h", "claude-sonnet-4-5", 10000, 1000, map[string]any{"cached_tokens": 6000, "cache_write_tokens": 1000, "cache_write_1h_tokens": 1000}),
		ev("nocache", noCacheModel, 10000, 1000, map[string]any{"cached_tokens": 6000}),
		ev("flat", "anthropic/claude-sonnet-4-5", 1000, 500, map[string]any{"metadata": map[string]any{"billing": "subscription"}}),
		ev("unknown", "acme-llm-9000", 1000, 500, nil),
		ev("client", "claude-sonnet-4-5", 1000, 500, map[string]any{"cost": 0.5}),
	}}
	r := s.call(t, "POST", "/v1/events/batch", key, batch).must(t, http.StatusOK)
	if r.Body["status"] != "ok" || num(t, r.Body["events_stored"]) != 7 || num(t, r.Body["events_received"]) != 7 {
		t.Fatalf("batch result %s", r.Raw)
	}
	got := s.listed(t, key)
	want := map[string]struct {
		cost   string
		priced bool
	}{
		// 1000×$3/M + 500×$15/M
		"plain": {"0.0105", true},
		// 2000×$3/M + 6000×$0.30/M + 2000×$3.75/M + 1000×$15/M
		"cached": {"0.0303", true},
		// 2000×$3/M + 6000×$0.30/M + 1000×$3.75/M + 1000×$6/M (1-hour writes) + 1000×$15/M
		"cached1h": {"0.03255", true},
		"nocache":  {noCacheCost, true},
		"flat":     {"0.0105", true},
		"unknown":  {"0", false},
		"client":   {"0.5", true},
	}
	for id, w := range want {
		e := got[id]
		if e == nil {
			t.Fatalf("event %s not listed", id)
		}
		if fmt.Sprint(e["cost"]) != w.cost || e["priced"] != w.priced {
			t.Errorf("%s: cost %v priced %v, want %s %v", id, e["cost"], e["priced"], w.cost, w.priced)
		}
	}
	if got["flat"]["billing"] != "subscription" || got["plain"]["billing"] != "api" {
		t.Errorf("billing: flat %v plain %v", got["flat"]["billing"], got["plain"]["billing"])
	}
	if fmt.Sprint(got["client"]["catalogue_cost"]) != "0.0105" || got["client"]["cost_provided"] != true {
		t.Errorf("client cost must be kept beside the catalogue's: %v", got["client"])
	}
	if got["plain"]["price_version"] == nil || got["unknown"]["catalogue_cost"] != nil {
		t.Errorf("price version %v, unknown catalogue cost %v", got["plain"]["price_version"], got["unknown"]["catalogue_cost"])
	}
}

func TestConcurrentRetriesStoreEachEventOnce(t *testing.T) {
	s := start(t, nil)
	_, _, key := s.account(t)
	events := make([]any, 100)
	for i := range events {
		events[i] = ev(fmt.Sprintf("evt-%03d", i), "gpt-4o", 100+i, 10, nil)
	}
	body := map[string]any{"events": events}
	var mu sync.Mutex
	var stored, dup float64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.call(t, "POST", "/v1/events/batch", key, body)
			if r.Status != http.StatusOK {
				t.Errorf("status %d: %s", r.Status, r.Raw)
				return
			}
			mu.Lock()
			stored += num(t, r.Body["events_stored"])
			dup += num(t, r.Body["events_duplicate"])
			mu.Unlock()
		}()
	}
	wg.Wait()
	if stored != 100 || dup != 4900 {
		t.Fatalf("stored %v duplicate %v, want 100 and 4900", stored, dup)
	}
	if n := len(s.listed(t, key)); n != 100 {
		t.Fatalf("%d rows, want 100", n)
	}
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func TestBadInputIsRefusedAndNothingOfItStored(t *testing.T) {
	s := start(t, nil)
	_, _, key := s.account(t)
	_, otherProject, _ := s.account(t)
	good := `{"agent_name":"a","model":"gpt-4o","input_tokens":1,"output_tokens":1,"timestamp":"2026-01-01T00:00:00Z"}`
	big := `{"events":[` + good + `],"pad":"` + strings.Repeat("x", 6<<20) + `"}`
	bomb := gz(t, []byte(`{"events":[],"pad":"`+strings.Repeat("0", 100<<20)+`"}`))
	cases := []struct {
		name    string
		body    any
		bearer  string
		status  int
		headers []string
	}{
		{"malformed JSON", `{"events":[`, key, 400, nil},
		{"NaN", `{"events":[{"input_tokens":NaN}]}`, key, 400, nil},
		{"events of the wrong type", `{"events":"all"}`, key, 422, nil},
		{"6 MiB body", big, key, 413, nil},
		{"gzip bomb", bomb, key, 413, []string{"Content-Encoding", "gzip"}},
		{"corrupt gzip", []byte("\x1f\x8b not gzip"), key, 400, []string{"Content-Encoding", "gzip"}},
		{"brotli", good, key, 415, []string{"Content-Encoding", "br"}},
		{"another project's id", `{"project_id":"` + otherProject + `","events":[` + good + `]}`, key, 403, nil},
		{"missing key", `{"events":[` + good + `]}`, "", 401, nil},
		{"invalid key", `{"events":[` + good + `]}`, "sk_llmc_" + strings.Repeat("A", 36), 401, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.call(t, "POST", "/v1/events/batch", c.bearer, c.body, c.headers...)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %.300s", r.Status, c.status, r.Raw)
			}
			if c.status == 401 && c.bearer != "" && r.Body["detail"] == nil {
				t.Fatalf("a bad key answers {detail}: %s", r.Raw)
			}
			if c.status != 401 && c.status != 415 && r.Body["error"] == nil {
				t.Fatalf("no error envelope: %.300s", r.Raw)
			}
		})
	}
	bad := `{"events":[` + strings.Join([]string{
		`{"agent_name":"a","model":"m","input_tokens":"1","output_tokens":1,"timestamp":"2026-01-01T00:00:00Z"}`,
		`{"agent_name":"a","model":"m","input_tokens":-1,"output_tokens":1,"timestamp":"2026-01-01T00:00:00Z"}`,
		`{"agent_name":"a","model":"m","input_tokens":5,"cached_tokens":6,"output_tokens":1,"timestamp":"2026-01-01T00:00:00Z"}`,
	}, ",") + `]}`
	r := s.call(t, "POST", "/v1/events/batch", key, bad).must(t, http.StatusOK)
	if r.Body["status"] != "partial" || num(t, r.Body["events_rejected"]) != 3 || num(t, r.Body["events_stored"]) != 0 {
		t.Fatalf("per-event rejections: %s", r.Raw)
	}
	if n := len(s.listed(t, key)); n != 0 {
		t.Fatalf("%d events stored from refused input", n)
	}
}

// noCacheModel publishes no cache rates: its 6000 cached tokens cost the full
// input rate, 10000×$10/M + 1000×$30/M.
const (
	noCacheModel = "gpt-4-turbo"
	noCacheCost  = "0.13"
)
