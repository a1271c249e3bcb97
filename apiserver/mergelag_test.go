package apiserver

import (
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/backlog"
)

// The mergers' lag shows in the health read (the deployment's), the
// overview page and /v1/metrics (the project's beside the deployment's);
// past a bound, a batch of the project holding the backlog is refused 503
// with Retry-After and stores nothing, another project's is stored.
func TestMergeLagIsShownAndBoundsIngest(t *testing.T) {
	m := &matrixEnv{env: newEnv(t), users: map[principal]user{}}
	o, other := m.register("owner"), m.register("other")
	gate := &backlog.Gate{Limits: backlog.Limits{Rollups: 1000}}
	var snap backlog.Snapshot
	snap.Add(backlog.Rollups, o.ProjectID, backlog.ProjectLag{Backlog: 4200, Seconds: 2.5})
	snap.Add(backlog.Runs, o.ProjectID, backlog.ProjectLag{Backlog: 37, Seconds: 1})
	gate.Set(snap)
	deps := m.deps(zap.NewNop())
	deps.Backlog = gate
	m.srv = New(deps)
	m.h = m.srv.Handler()

	h := m.must(m.do("GET", "/v1/health", "", nil), 200)
	rollups, _ := h.obj("mergers")["rollups"].(map[string]any)
	if rollups["backlog"] != float64(4200) || rollups["lag_seconds"] != 2.5 {
		t.Fatalf("health mergers: %s", h.Raw)
	}
	metrics := m.must(m.do("GET", "/v1/metrics", o.Key, nil), 200)
	for _, line := range []string{`service_merge_backlog{merger="rollups",scope="project"} 4200`,
		`service_merge_backlog{merger="runs",scope="deployment"} 37`, `service_merge_lag_seconds{merger="rollups",scope="project"} 2.5`} {
		if !strings.Contains(metrics.Raw, line) {
			t.Fatalf("metrics lack %s:\n%s", line, metrics.Raw)
		}
	}
	b := m.browser()
	b.signIn(o.Email)
	b.must(b.get("/?project="+o.ProjectID+"&range=24h"), 200, `id="merge-lag"`, "4,200 calls", "2.5 s")

	batch := map[string]any{"events": []any{map[string]any{"event_id": "e1", "agent_name": "a", "model": "gpt-4o-mini",
		"input_tokens": 10, "output_tokens": 1}}}
	refused := m.do("POST", "/v1/events/batch", o.Key, batch)
	if refused.Status != http.StatusServiceUnavailable || refused.Header.Get("Retry-After") == "" {
		t.Fatalf("a batch of the project holding the backlog: %d %v %s", refused.Status, refused.Header, refused.Raw)
	}
	// The ingest slot is empty in this server (no receiver): another
	// project passes the gate and meets the empty slot's own 503.
	passed := m.do("POST", "/v1/events/batch", other.Key, batch)
	if passed.Status != http.StatusServiceUnavailable || !strings.Contains(passed.Raw, "pipeline is not running") {
		t.Fatalf("another project's batch: %d %s", passed.Status, passed.Raw)
	}
	if !strings.Contains(refused.Raw, "rollups merger") {
		t.Fatalf("the refusal does not name the merger: %s", refused.Raw)
	}
}
