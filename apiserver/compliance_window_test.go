package apiserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
)

// TestComplianceWindowIsNowMinusRange: compliance reads [now − range, now)
// like every report, not from midnight range days ago: a call a minute
// before the window's start (same UTC day) is left out, one a minute after
// it counts, whether the days between come from the rollups or the tail;
// breach_series has one entry per UTC day the window touches.
func TestComplianceWindowIsNowMinusRange(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 11, 20, 15, 30, 0, 0, time.UTC)
	e.clock.mu.Lock()
	e.clock.now = now
	e.clock.mu.Unlock()
	u := e.register("window")
	p := e.must(e.do("POST", "/v1/projects", u.Access, map[string]string{"name": "w"}), 201).str("id")
	e.setGuardrails(u, p)
	call := func(id string, at time.Duration) guardCall {
		return guardCall{id, "reader", "gpt-4o-mini", "search", "", 1_000_000, at}
	}
	week, dayLen := 7*24*time.Hour, 24*time.Hour
	e.writeCalls(p, []guardCall{call("before-7d", week+time.Minute), call("after-7d", week-time.Minute),
		call("mid", 3*dayLen), call("before-24h", dayLen+time.Minute), call("after-24h", dayLen-time.Minute)})
	if _, err := e.db.MergeRollups(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.writeCalls(p, []guardCall{call("tail-mid", 2*dayLen), call("today", time.Minute)}) // the tail
	for _, c := range []struct {
		rng   string
		calls int64
		days  int
	}{{"7d", 6, 8}, {"24h", 2, 2}} {
		raw := e.must(e.do("GET", "/v1/guardrails/compliance?range="+c.rng+"&project_id="+p, u.Access, nil), 200).Raw
		var out wire.Compliance
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatal(err)
		}
		d, _ := time.ParseDuration(map[string]string{"7d": "168h", "24h": "24h"}[c.rng])
		if out.StartTime != ts(now.Add(-d)) || out.EndTime != ts(now) {
			t.Errorf("%s: window %s – %s, want %s – %s", c.rng, out.StartTime, out.EndTime, ts(now.Add(-d)), ts(now))
		}
		r := agentsByName(t, raw)["reader"]
		if r.TotalCalls != c.calls || out.TotalCalls != c.calls || len(r.BreachSeries) != c.days {
			t.Errorf("%s: agent calls %d, project calls %d, %d series days; want %d calls, %d days",
				c.rng, r.TotalCalls, out.TotalCalls, len(r.BreachSeries), c.calls, c.days)
		}
	}
}
