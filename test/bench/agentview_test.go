package bench

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// The agent view is timed over 30d as well: its targets are
// stated at 30d (agents summary p95 ≤ 150 ms for 50 agents, one agent's
// detail ≤ 250 ms); the optimisations read a fixed 30 days (≤ 500 ms).
var agentViewRanges = []string{"24h", "7d", "30d", "90d"}

// timeAgentView times the agents summary and one agent's detail over
// agentViewRanges, and the two optimisation reads once each.
func timeAgentView(b *testing.B, srv *llmcost, key, agent string) []timing {
	var out []timing
	for _, path := range []string{"/v1/analytics/agents/summary", "/v1/analytics/agents/" + url.PathEscape(agent)} {
		name := strings.TrimPrefix(path, "/v1/analytics/")
		if path != "/v1/analytics/agents/summary" {
			name = "agents/{agent_name}"
		}
		t := timing{name: name, served: true, p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
		for _, rng := range agentViewRanges {
			p50, p95, served := timeOne(b, srv, key, path+"?range="+rng)
			if !served {
				t.served = false
				break
			}
			t.p50[rng], t.p95[rng] = p50, p95
		}
		out = append(out, t)
	}
	for _, path := range []string{"/v1/optimizations", "/v1/optimizations/summary"} {
		t := timing{name: strings.TrimPrefix(path, "/v1/"), p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
		t.p50["30d"], t.p95["30d"], t.served = timeOne(b, srv, key, path)
		out = append(out, t)
	}
	return out
}
