package apiserver

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// seedCalls stores calls for project through the store (the batch endpoint
// is a pipeline route, exercised end to end in test/e2e).
func (e *env) seedCalls(project string, now time.Time) {
	e.t.Helper()
	lat := int64(400)
	calls := []event.Event{
		{EventID: "a1", AgentName: "planner", Model: "m1", InputTokens: 100, OutputTokens: 10, TotalTokens: 110,
			CostNano: 1_500, Priced: true, Success: true, LatencyMS: &lat, Timestamp: now.Add(-10 * time.Minute)},
		{EventID: "a2", AgentName: "coder", Model: "m2", InputTokens: 200, OutputTokens: 20, TotalTokens: 220,
			CostNano: 2_500, Priced: true, Billing: "subscription", Timestamp: now.Add(-5 * time.Hour)},
		{EventID: "a3", AgentName: "coder", Model: "m2", InputTokens: 1, OutputTokens: 1, TotalTokens: 2,
			CostNano: 7, Priced: true, Success: true, Timestamp: now.Add(-30 * time.Hour)},
	}
	for i := range calls {
		calls[i].ProjectID, calls[i].Source = project, "batch"
	}
	if _, err := e.db.Write(context.Background(), calls, nil); err != nil {
		e.t.Fatal(err)
	}
}

func TestAnalyticsAccess(t *testing.T) {
	m := &matrixEnv{env: newEnv(t), users: map[principal]user{}}
	for _, p := range []principal{owner, viewer, outsider} {
		u := m.register(string(p))
		m.verify(u)
		m.users[p] = u
	}
	o := m.users[owner]
	r := m.must(m.do("POST", "/v1/projects", o.Access, map[string]string{"name": "analytics"}), 201)
	id, k := r.str("id"), r.str("api_key")
	m.must(m.do("POST", "/v1/projects/"+id+"/members", o.Access, map[string]string{"email": m.users[viewer].Email, "role": "viewer"}), 201)
	m.must(m.do("POST", "/v1/projects/"+id+"/invitations/accept", m.users[viewer].Access, nil), 200)
	m.seedCalls(id, m.clock.Now())

	paths := []string{"/v1/analytics/overview?range=24h", "/v1/analytics/agents", "/v1/analytics/models?range=1h",
		"/v1/analytics/timeseries?range=24h", "/v1/analytics/full", "/v1/analytics/by/model?range=7d",
		"/v1/analytics/cache?agent_name=coder", "/v1/analytics/workflows", "/v1/analytics/workflows/steps?workflow=w",
		"/v1/analytics/workflows/tools", "/v1/analytics/workflows/repeated-work", "/v1/analytics/workflows/outcomes",
		"/v1/analytics/traces?range=90d"}
	for _, path := range paths {
		byKey := m.must(m.do("GET", path, k, nil), 200)
		sep := "&"
		if !containsQuery(path) {
			sep = "?"
		}
		withID := path + sep + "project_id=" + url.QueryEscape(id)
		for _, p := range []principal{owner, viewer} {
			got := m.must(m.do("GET", withID, m.users[p].Access, nil), 200)
			if got.Raw != byKey.Raw {
				t.Errorf("%s as %s:\n%s\nwith the key:\n%s", path, p, got.Raw, byKey.Raw)
			}
		}
		m.must(m.do("GET", withID, k, nil), 200)
		m.must(m.do("GET", withID, m.users[outsider].Access, nil), 404)
		m.must(m.do("GET", withID, m.users[outsider].Key, nil), 403)
		m.must(m.do("GET", path, m.users[owner].Access, nil), 422)
		m.must(m.do("GET", path, "", nil), 401)
	}
	// The key's numbers are the seeded ones.
	ov := m.must(m.do("GET", "/v1/analytics/overview?range=24h", k, nil), 200)
	if fmt.Sprint(ov.Body["total_cost"], ov.Body["subscription_cost"], ov.Body["total_calls"], ov.Body["success_rate"],
		ov.Body["avg_latency_ms"]) != "4e-06 2.5e-06 2 50 400" {
		t.Errorf("overview %s", ov.Raw)
	}
}

func containsQuery(p string) bool {
	for _, c := range p {
		if c == '?' {
			return true
		}
	}
	return false
}

func TestAnalyticsParametersAndBuckets(t *testing.T) {
	e := newEnv(t)
	u := e.register("series")
	// A fixed clock: 10:07:30 UTC, so the buckets are known.
	e.clock.mu.Lock()
	e.clock.now = time.Date(2026, 3, 8, 10, 7, 30, 0, time.UTC)
	e.clock.mu.Unlock()
	e.seedCalls(u.ProjectID, e.clock.Now())

	for _, tc := range []struct {
		rng          string
		n            int
		first, empty string
	}{
		{"1h", 13, "2026-03-08T09:05:00Z", "2026-03-08T09:10:00Z"},
		{"24h", 25, "2026-03-07T10:00:00Z", "2026-03-07T11:00:00Z"},
		{"7d", 169, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z"},
		{"30d", 31, "2026-02-06T00:00:00Z", "2026-02-07T00:00:00Z"},
		{"90d", 91, "2025-12-08T00:00:00Z", "2025-12-09T00:00:00Z"},
	} {
		r := e.must(e.do("GET", "/v1/analytics/timeseries?range="+tc.rng, u.Key, nil), 200)
		if len(r.List) != tc.n {
			t.Fatalf("%s: %d buckets, want %d", tc.rng, len(r.List), tc.n)
		}
		first, second := r.List[0].(map[string]any), r.List[1].(map[string]any)
		if first["timestamp"] != tc.first || second["timestamp"] != tc.empty || second["calls"] != 0.0 || second["cost"] != 0.0 {
			t.Errorf("%s: first buckets %v %v", tc.rng, first, second)
		}
		var calls float64
		for _, p := range r.List {
			calls += p.(map[string]any)["calls"].(float64)
		}
		want := map[string]float64{"1h": 1, "24h": 2, "7d": 3, "30d": 3, "90d": 3}[tc.rng]
		if calls != want {
			t.Errorf("%s: %v calls over the buckets, want %v", tc.rng, calls, want)
		}
	}
	// The 09:57:30 call is in the 09:00 bucket, the 05:07:30 one in 05:00.
	r := e.must(e.do("GET", "/v1/analytics/timeseries?range=24h", u.Key, nil), 200)
	for _, p := range r.List {
		pt := p.(map[string]any)
		want := map[string]float64{"2026-03-08T09:00:00Z": 1, "2026-03-08T05:00:00Z": 1}[pt["timestamp"].(string)]
		if pt["calls"] != want {
			t.Errorf("bucket %v: %v calls, want %v", pt["timestamp"], pt["calls"], want)
		}
	}

	for path, field := range map[string]string{
		"/v1/analytics/overview?range=1h":  "range",
		"/v1/analytics/agents?range=24H":   "range",
		"/v1/analytics/models?range=2d":    "range",
		"/v1/analytics/by/user?limit=0":    "limit",
		"/v1/analytics/agents?limit=1001":  "limit",
		"/v1/analytics/full?limit=x":       "limit",
		"/v1/analytics/cache?range=999d":   "range",
		"/v1/analytics/timeseries?range=1": "range",
	} {
		r := e.must(e.do("GET", path, u.Key, nil), 422)
		if msg := r.obj("error")["message"].(string); msg[:len(field)+1] != field+":" {
			t.Errorf("%s: %s", path, r.Raw)
		}
	}
	r = e.must(e.do("GET", "/v1/analytics/by/colour", u.Key, nil), 404)
	if r.obj("error")["code"] != "not_found" {
		t.Errorf("unknown dimension: %s", r.Raw)
	}
	// An agent without calls: zeros, nulls and empty arrays, not 404.
	r = e.must(e.do("GET", "/v1/analytics/full?agent_name=nobody", u.Key, nil), 200)
	if fmt.Sprint(r.obj("overview")["total_calls"], r.obj("overview")["success_rate"], r.obj("overview")["avg_cost_per_call"],
		r.Body["agents"], r.Body["models"]) != "0 <nil> <nil> [] []" {
		t.Errorf("no calls: %s", r.Raw)
	}
	// limit applies after sorting: the most expensive agent first.
	r = e.must(e.do("GET", "/v1/analytics/agents?limit=1", u.Key, nil), 200)
	if len(r.List) != 1 || r.List[0].(map[string]any)["agent_name"] != "coder" {
		t.Errorf("limit=1: %s", r.Raw)
	}
}
