package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// money is an expected USD amount in nano-USD.
type money int64

// same compares one field of a reply with its hand-computed value.
func same(t *testing.T, where, field string, got, want any) {
	t.Helper()
	n, _ := got.(json.Number)
	ok := false
	switch w := want.(type) {
	case money:
		ok = n != "" && decimalNano(t, n.String()) == int64(w)
	case int64:
		ok = n.String() == strconv.FormatInt(w, 10)
	case float64:
		f, err := n.Float64()
		ok = err == nil && f == w
	case nil:
		ok = got == nil
	case string:
		ok = got == w
	}
	if !ok {
		t.Errorf("%s: %s = %v, want %v", where, field, got, want)
	}
}

func sameObj(t *testing.T, where string, got any, want map[string]any) {
	t.Helper()
	m, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("%s: %v is not an object", where, got)
	}
	if len(m) != len(want) {
		t.Errorf("%s: fields %v, want %d fields", where, m, len(want))
	}
	for k, v := range want {
		same(t, where, k, m[k], v)
	}
}

// dropAnomalies checks that an overview lists its anomalies and removes
// them before the sums are compared: which days are anomalous is the
// rule's (internal/anomaly's tables, apiserver's spiked-day test).
func dropAnomalies(t *testing.T, where string, overview map[string]any) {
	t.Helper()
	if _, ok := overview["anomalies"].([]any); !ok {
		t.Errorf("%s: anomalies %v, want a list", where, overview["anomalies"])
	}
	delete(overview, "anomalies")
}

func sameList(t *testing.T, where string, got any, want []map[string]any) {
	t.Helper()
	l, ok := got.([]any)
	if !ok || len(l) != len(want) {
		t.Fatalf("%s: %v, want %d rows", where, got, len(want))
	}
	for i := range want {
		sameObj(t, fmt.Sprintf("%s[%d]", where, i), l[i], want[i])
	}
}

func overviewWant(a agg) map[string]any {
	var avg any
	if a.calls > 0 {
		avg = money((a.cost*2 + a.calls) / (2 * a.calls))
	}
	return map[string]any{"total_cost": money(a.cost), "subscription_cost": money(a.sub), "total_calls": a.calls,
		"total_tokens": a.tokens, "avg_cost_per_call": avg, "avg_latency_ms": mean(a.latSum, a.latN),
		"success_rate": pct(a.ok, a.calls)}
}

func rowsWant(rows []keyed, name string) []map[string]any {
	out := []map[string]any{}
	for _, r := range rows {
		out = append(out, map[string]any{name: r.key, "total_calls": r.calls, "total_tokens": r.tokens,
			"total_cost": money(r.cost), "avg_latency_ms": mean(r.latSum, r.latN), "success_rate": pct(r.ok, r.calls)})
	}
	return out
}

func modelsWant(rows []keyed, all int64) []map[string]any {
	out := []map[string]any{}
	for _, r := range rows {
		out = append(out, map[string]any{"model": r.key, "total_calls": r.calls, "total_tokens": r.tokens,
			"input_tokens": r.in, "output_tokens": r.out, "total_cost": money(r.cost), "cost_share": pct(r.cost, all),
			"unpriced_calls": r.unpriced})
	}
	return out
}

func cacheWant(a agg) map[string]any {
	return map[string]any{"total_input_tokens": a.in, "cached_tokens": a.cached, "cache_write_tokens": a.writes,
		"cache_hit_rate": pct(a.cached, a.in), "events_with_cache": a.withCache, "read_savings": money(a.read),
		"write_premium": money(a.premium), "net_savings": money(a.read - a.premium)}
}

var ranges = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour,
	"30d": 30 * 24 * time.Hour, "90d": 90 * 24 * time.Hour}

// checkReports compares every report, for every range and a few agent
// filters, with the figures computed from the dataset priced by cat.
func checkReports(t *testing.T, s *service, key string, cat map[string]rates, now time.Time) {
	t.Helper()
	for rng, d := range ranges {
		for _, agent := range []string{"", "coder", "reviewer", "nobody"} {
			var in []priced
			var all agg
			for _, c := range dataset {
				if c.age < d && (agent == "" || c.agent == agent) {
					p := price(t, c, cat, now)
					in = append(in, p)
					all.add(p)
				}
			}
			q := "?range=" + rng + "&agent_name=" + url.QueryEscape(agent)
			where := func(report string) string { return report + q }
			get := func(path string) response {
				return s.call(t, "GET", "/v1/analytics/"+path+q, key, nil).must(t, http.StatusOK)
			}
			list := func(path string) any {
				r := s.call(t, "GET", "/v1/analytics/"+path+q, key, nil).must(t, http.StatusOK)
				var v any
				d := json.NewDecoder(bytes.NewReader(r.Raw))
				d.UseNumber()
				if err := d.Decode(&v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			ov := overviewWant(all)
			if rng == "1h" {
				s.call(t, "GET", "/v1/analytics/overview"+q, key, nil).must(t, http.StatusUnprocessableEntity)
			} else {
				got := get("overview")
				ov["period_start"], ov["period_end"] = got.Body["period_start"], got.Body["period_end"]
				dropAnomalies(t, where("overview"), got.Body)
				sameObj(t, where("overview"), got.Body, ov)
				start, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(got.Body["period_start"]))
				end, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(got.Body["period_end"]))
				if end.Sub(start) != d || end.Before(now) {
					t.Errorf("%s: period %v – %v", where("overview"), start, end)
				}
			}
			sameList(t, where("agents"), list("agents"), rowsWant(group(in, "agent"), "agent_name"))
			sameList(t, where("models"), list("models"), modelsWant(group(in, "model"), all.cost))
			sameObj(t, where("cache"), get("cache").Body, cacheWant(all))
			for _, dim := range []string{"user", "session", "workflow", "tool", "model", "agent", "billing"} {
				sameList(t, where("by/"+dim), list("by/"+dim), rowsWant(group(in, dim), "key"))
			}
			full := get("full")
			fo, _ := full.Body["overview"].(map[string]any)
			ov["period_start"], ov["period_end"] = fo["period_start"], fo["period_end"]
			dropAnomalies(t, where("full.overview"), fo)
			sameObj(t, where("full.overview"), fo, ov)
			sameList(t, where("full.agents"), full.Body["agents"], rowsWant(group(in, "agent"), "agent_name"))
			sameList(t, where("full.models"), full.Body["models"], modelsWant(group(in, "model"), all.cost))
			checkSeries(t, where("timeseries"), list("timeseries"), in, rng)
			checkSeries(t, where("full.timeseries"), full.Body["timeseries"], in, rng)
		}
	}
}

// checkSeries checks a time series: every bucket present, aligned, oldest
// first, each call in the bucket holding its timestamp, the others zero.
func checkSeries(t *testing.T, where string, got any, calls []priced, rng string) {
	t.Helper()
	width := map[string]time.Duration{"1h": 5 * time.Minute, "24h": time.Hour, "7d": time.Hour,
		"30d": 24 * time.Hour, "90d": 24 * time.Hour}[rng]
	n := int(ranges[rng]/width) + 1
	want := map[time.Time]*agg{}
	for _, p := range calls {
		b := p.ts.Truncate(width)
		if want[b] == nil {
			want[b] = &agg{}
		}
		want[b].add(p)
	}
	l, _ := got.([]any)
	if len(l) != n && len(l) != n+1 { // n+1 only when the clock crosses a bucket mid-test
		t.Fatalf("%s: %d buckets, want %d", where, len(l), n)
	}
	var prev time.Time
	for i, x := range l {
		m := x.(map[string]any)
		b, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["timestamp"]))
		if err != nil || !b.Equal(b.Truncate(width)) || (i > 0 && b.Sub(prev) != width) {
			t.Fatalf("%s: bucket %d at %v after %v", where, i, m["timestamp"], prev)
		}
		prev = b
		a := want[b]
		if a == nil {
			a = &agg{}
		}
		delete(want, b)
		sameObj(t, where+" "+b.Format(time.RFC3339), m, map[string]any{"timestamp": m["timestamp"],
			"cost": money(a.cost), "calls": a.calls, "tokens": a.tokens})
	}
	if len(want) != 0 {
		t.Errorf("%s: calls in no bucket: %v", where, want)
	}
}

func TestAnalyticsReportsMatchTheEvents(t *testing.T) {
	n := time.Now().UnixNano()
	admin := fmt.Sprintf("analytics-admin-%d@example.com", n)
	s := start(t, map[string]string{"LLMCOST_ADMIN_EMAILS": admin})
	adminToken, projectID, key := s.registerAs(t, admin)
	_, otherID, otherKey := s.account(t)
	now := time.Now().UTC()
	var events, others []any
	for _, c := range dataset {
		events = append(events, c.body(now))
		c.agent, c.model = "coder", "claude-sonnet-4-5" // another project's calls never count here
		others = append(others, c.body(now))
	}
	r := s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": projectID, "events": events}).must(t, http.StatusOK)
	if num(t, r.Body["events_stored"]) != float64(len(dataset)) {
		t.Fatalf("batch: %s", r.Raw)
	}
	s.call(t, "POST", "/v1/events/batch", otherKey, map[string]any{"project_id": otherID, "events": others}).must(t, http.StatusOK)
	checkReports(t, s, key, catalogue, now)

	// A re-send stores nothing and changes nothing.
	r = s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": projectID, "events": events}).must(t, http.StatusOK)
	if num(t, r.Body["events_duplicate"]) != float64(len(dataset)) {
		t.Fatalf("re-send: %s", r.Raw)
	}
	checkReports(t, s, key, catalogue, now)

	// Import acme-llm-9000 and re-price: e5 becomes priced, e11 keeps the
	// client's cost but is no longer unpriced; the reports follow.
	file := fixtureVariant(t, map[string]any{"acme-llm-9000": map[string]any{"litellm_provider": "acme",
		"mode": "chat", "input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06}})
	s.call(t, "POST", "/v1/pricing/import", adminToken, file).must(t, http.StatusOK)
	rp := s.call(t, "POST", "/v1/pricing/reprice", adminToken, map[string]any{"dry_run": false,
		"start": now.Add(-200 * 24 * time.Hour).Format(time.RFC3339), "end": now.Add(time.Hour).Format(time.RFC3339)}).
		must(t, http.StatusOK)
	if num(t, rp.Body["events"]) < 2 {
		t.Fatalf("re-pricing changed too little: %s", rp.Raw)
	}
	after := map[string]rates{"acme-llm-9000": acmeRates}
	for k, v := range catalogue {
		after[k] = v
	}
	checkReports(t, s, key, after, now)
}
