package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// batchOf is a batch of n calls with ids prefix-0 … prefix-(n−1).
func batchOf(prefix string, n int) map[string]any {
	events := make([]any, n)
	for i := range events {
		events[i] = ev(fmt.Sprintf("%s-%d", prefix, i), "gpt-4o-mini", 100, 10, nil)
	}
	return map[string]any{"events": events}
}

// mergerBacklog polls the health read until the rollup merger's backlog
// satisfies ok, and returns it.
func (s *service) mergerBacklog(t *testing.T, ok func(int64) bool) int64 {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK)
		m, _ := r.Body["mergers"].(map[string]any)
		rollups, _ := m["rollups"].(map[string]any)
		if rollups != nil {
			n, _ := strconv.ParseInt(fmt.Sprint(rollups["backlog"]), 10, 64)
			if ok(n) {
				return n
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never showed the wanted backlog: %s", r.Raw)
		}
	}
}

// Past the merge-backlog bound, ingest answers 503 with Retry-After to the
// project that floods the merger, and still serves another project; once
// the merger has drained the backlog, the refused batch is stored on
// retry, and every call is stored exactly once. The server's own merger is
// held off (an interval of an hour), so the test merges as a second
// instance would.
func TestIngestPushesBackPastTheMergeBound(t *testing.T) {
	s := start(t, map[string]string{"LLMCOST_ROLLUP_MERGE_INTERVAL": "1h", "LLMCOST_MAX_MERGE_BACKLOG": "150"})
	_, flood, floodKey := s.account(t)
	_, _, otherKey := s.account(t)
	for _, id := range []string{"b1", "b2"} {
		r := s.call(t, "POST", "/v1/events/batch", floodKey, batchOf(id, 100)).must(t, http.StatusOK)
		if num(t, r.Body["events_stored"]) != 100 {
			t.Fatalf("batch %s: %s", id, r.Raw)
		}
	}
	s.mergerBacklog(t, func(n int64) bool { return n == 200 })

	refused := s.call(t, "POST", "/v1/events/batch", floodKey, batchOf("b3", 100))
	if refused.Status != http.StatusServiceUnavailable {
		t.Fatalf("a batch past the bound: %d %s", refused.Status, refused.Raw)
	}
	if after, err := strconv.Atoi(refused.Header.Get("Retry-After")); err != nil || after < 1 || after > 30 {
		t.Fatalf("Retry-After %q", refused.Header.Get("Retry-After"))
	}
	if msg := fmt.Sprint(refused.Body["error"]); !strings.Contains(msg, "rollups merger") || !strings.Contains(msg, "bound 150") {
		t.Fatalf("the refusal does not say which merger and bound: %s", refused.Raw)
	}
	// The other project holds none of the backlog: it is served.
	s.call(t, "POST", "/v1/events/batch", otherKey, batchOf("o1", 10)).must(t, http.StatusOK)
	metrics := s.call(t, "GET", "/v1/metrics", floodKey, nil).must(t, http.StatusOK)
	if !strings.Contains(string(metrics.Raw), `service_merge_backlog{merger="rollups",scope="project"} 200`) {
		t.Fatalf("metrics lack the project's backlog:\n%s", metrics.Raw)
	}

	db, err := postgres.Open(context.Background(), s.dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.MergeRollups(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.mergerBacklog(t, func(n int64) bool { return n == 0 })
	r := s.call(t, "POST", "/v1/events/batch", floodKey, batchOf("b3", 100)).must(t, http.StatusOK)
	if num(t, r.Body["events_stored"]) != 100 || num(t, r.Body["events_duplicate"]) != 0 {
		t.Fatalf("the retried batch: %s", r.Raw)
	}
	// A client that retries a batch already acknowledged stores nothing twice.
	r = s.call(t, "POST", "/v1/events/batch", floodKey, batchOf("b2", 100)).must(t, http.StatusOK)
	if num(t, r.Body["events_stored"]) != 0 || num(t, r.Body["events_duplicate"]) != 100 {
		t.Fatalf("a retried acknowledged batch: %s", r.Raw)
	}
	if n, err := db.CountEvents(context.Background(), flood); err != nil || n != 300 {
		t.Fatalf("stored %d calls of the flooding project, want 300 (%v)", n, err)
	}
}
