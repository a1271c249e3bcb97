package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

func TestRetentionSettingsHideExpiredCalls(t *testing.T) {
	e := newEnv(t)
	u := e.register("retention")
	p, path := u.ProjectID, "/v1/projects/"+u.ProjectID+"/retention"
	now := e.clock.Now()
	var calls []event.Event
	for id, age := range map[string]time.Duration{"new": time.Hour, "old": 40 * 24 * time.Hour} {
		calls = append(calls, event.Event{ProjectID: p, EventID: id, AgentName: "a", Model: "m", InputTokens: 1, OutputTokens: 1,
			TotalTokens: 2, CostNano: 5, Priced: true, Success: true, Source: "batch", Billing: "api", Timestamp: now.Add(-age),
			TraceID: "t-" + id, SpanID: "s-" + id})
	}
	if _, err := e.db.Write(context.Background(), calls, nil); err != nil {
		t.Fatal(err)
	}

	r := e.must(e.do("GET", path, u.Key, nil), 200)
	for _, k := range []string{"raw_days", "rollup_days", "default_raw_days", "default_rollup_days", "raw_expired_before"} {
		if v, ok := r.Body[k]; !ok || v != nil {
			t.Fatalf("%s of a new project on a keep-forever deployment: %s", k, r.Raw)
		}
	}
	if l := e.must(e.do("GET", "/v1/events", u.Key, nil), 200); len(l.Body["events"].([]any)) != 2 || l.Body["expired_before"] != nil {
		t.Fatalf("events kept forever: %s", l.Raw)
	}

	// Refused with the field and the rule; nothing applied, not even the
	// valid half.
	for field, bad := range map[string]map[string]any{
		"raw_days":    {"raw_days": 0, "rollup_days": 400},
		"rollup_days": {"raw_days": 30, "rollup_days": 3651},
	} {
		r := e.must(e.do("PUT", path, u.Access, bad), 422)
		if !strings.Contains(r.Raw, field) || !strings.Contains(r.Raw, "3650") {
			t.Fatalf("refusal of %v does not name %s and the rule: %s", bad, field, r.Raw)
		}
	}
	if r := e.must(e.do("GET", path, u.Access, nil), 200); r.Body["raw_days"] != nil || r.Body["rollup_days"] != nil {
		t.Fatalf("a refused request changed the settings: %s", r.Raw)
	}
	e.must(e.do("PUT", path, u.Key, map[string]any{"raw_days": 30}), 401)

	r = e.must(e.do("PUT", path, u.Access, map[string]any{"raw_days": 30, "rollup_days": nil}), 200)
	want := now.Add(-30 * 24 * time.Hour).UTC().Format(time.RFC3339Nano)
	if r.Body["raw_days"] != 30.0 || r.Body["rollup_days"] != nil || r.str("raw_expired_before") != want {
		t.Fatalf("raw_days 30: %s (want raw_expired_before %s)", r.Raw, want)
	}
	l := e.must(e.do("GET", "/v1/events", u.Key, nil), 200)
	events := l.Body["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["event_id"] != "new" || l.str("expired_before") != want {
		t.Fatalf("events after a 30-day retention: %s", l.Raw)
	}
	trace := func(id string) string { return "/v1/analytics/traces/" + id + "?project_id=" + p }
	if tr := e.must(e.do("GET", trace("t-new"), u.Key, nil), 200); tr.str("expired_before") != want || len(tr.Body["spans"].([]any)) != 1 {
		t.Fatalf("a recent trace: %s", tr.Raw)
	}
	if tr := e.must(e.do("GET", trace("t-old"), u.Key, nil), 404); !strings.Contains(tr.Raw, "expired") || !strings.Contains(tr.Raw, want) {
		t.Fatalf("a trace whose calls expired, and whose run is not in the run tables, does not say so: %s", tr.Raw)
	}
	// Once the run tables hold the run, its totals outlive its calls.
	if _, err := e.db.MergeRuns(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	tr := e.must(e.do("GET", trace("t-old"), u.Key, nil), 200)
	if tr.str("expired_before") != want || len(tr.Body["spans"].([]any)) != 0 || tr.Body["total_calls"] != 1.0 ||
		tr.Body["steps"] == nil || tr.Body["tools"] == nil {
		t.Fatalf("an expired run's totals: %s", tr.Raw)
	}
	if tr := e.must(e.do("GET", trace("t-new"), u.Key, nil), 200); len(tr.Body["spans"].([]any)) != 1 || tr.Body["total_calls"] != 1.0 {
		t.Fatalf("a recent trace after the merge: %s", tr.Raw)
	}
}

// Rollups outlive the calls: a project's rollup retention shorter than
// its raw retention in force is refused, naming the field.
func TestRollupRetentionShorterThanRawIsRefused(t *testing.T) {
	e := newEnv(t)
	u := e.register("rollup-retention")
	path := "/v1/projects/" + u.ProjectID + "/retention"
	for _, bad := range []map[string]any{{"raw_days": 30, "rollup_days": 7}, {"rollup_days": 7}} {
		if r := e.must(e.do("PUT", path, u.Access, bad), 422); !strings.Contains(r.Raw, "rollup_days") ||
			!strings.Contains(r.Raw, "raw retention") {
			t.Fatalf("refusal of %v: %s", bad, r.Raw)
		}
	}
	r := e.must(e.do("PUT", path, u.Access, map[string]any{"raw_days": 30, "rollup_days": 30}), 200)
	if r.Body["rollup_days"] != 30.0 || r.str("rollup_expired_before") == "" {
		t.Fatalf("rollup_days 30: %s", r.Raw)
	}
}

// A report window that starts before the raw cutoff says where it starts:
// at the whole hour (the hourly rollups), or at the rollups' cutoff.
func TestReportWindowStartsWhereRetentionKeepsIt(t *testing.T) {
	e := newEnv(t)
	u := e.register("retention-window")
	path := "/v1/projects/" + u.ProjectID + "/retention"
	now := e.clock.Now().UTC()
	ov := e.must(e.do("GET", "/v1/analytics/overview?range=7d", u.Key, nil), 200)
	if want := now.Add(-7 * 24 * time.Hour).Format(time.RFC3339Nano); !strings.HasPrefix(ov.str("period_start"), want[:16]) {
		t.Fatalf("kept forever: period_start %s, want now − 7 days %s", ov.str("period_start"), want)
	}
	e.must(e.do("PUT", path, u.Access, map[string]any{"raw_days": 1}), 200)
	ov = e.must(e.do("GET", "/v1/analytics/overview?range=7d", u.Key, nil), 200)
	if want := now.Add(-7 * 24 * time.Hour).Truncate(time.Hour).Format(time.RFC3339); ov.str("period_start") != want {
		t.Fatalf("raw calls kept a day: period_start %s, want the whole hour %s", ov.str("period_start"), want)
	}
	e.must(e.do("PUT", path, u.Access, map[string]any{"raw_days": 1, "rollup_days": 1}), 200)
	ov = e.must(e.do("GET", "/v1/analytics/overview?range=90d", u.Key, nil), 200)
	if want := now.AddDate(0, 0, -31).Truncate(24 * time.Hour).Format(time.RFC3339); ov.str("period_start") != want {
		t.Fatalf("rollups kept 31 days at least: period_start %s, want %s", ov.str("period_start"), want)
	}
}
