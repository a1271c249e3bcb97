package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRepriceUnpricedEventsAfterAnImport(t *testing.T) {
	n := time.Now().UnixNano()
	admin := fmt.Sprintf("pricing-admin-%d@example.com", n)
	s := start(t, map[string]string{"LLMCOST_ADMIN_EMAILS": admin})
	adminToken, projectID, key := s.registerAs(t, admin)
	userToken, _, _ := s.account(t)

	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": projectID, "events": []any{
		ev("u1", "acme-llm-9000", 1000, 500, nil),
		ev("u2", "ACME-LLM-9000", 1000, 500, nil),
		ev("client", "acme-llm-9000", 1000, 500, map[string]any{"cost": 0.5}),
		ev("known", "claude-sonnet-4-5", 1000, 500, nil),
	}}).must(t, http.StatusOK)
	before := s.listed(t, key)
	if before["u1"]["priced"] != false || fmt.Sprint(before["u1"]["cost"]) != "0" {
		t.Fatalf("unknown model stored as %v", before["u1"])
	}

	// The fixture plus the model: $2 in and $8 out per million tokens.
	file := fixtureVariant(t, map[string]any{"acme-llm-9000": map[string]any{"litellm_provider": "acme",
		"mode": "chat", "input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06}})
	imp := s.call(t, "POST", "/v1/pricing/import", adminToken, file).must(t, http.StatusOK)
	window := map[string]any{"start": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
		"end": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}

	// Admins only; a clear 422 for a bad window.
	s.call(t, "POST", "/v1/pricing/reprice", "", window).must(t, http.StatusUnauthorized)
	s.call(t, "POST", "/v1/pricing/reprice", userToken, window).must(t, http.StatusForbidden)
	s.call(t, "POST", "/v1/pricing/reprice", key, window).must(t, http.StatusForbidden)
	for body, field := range map[string]string{
		`{"end": "2026-07-02T00:00:00Z"}`:                                                     "start",
		`{"start": "2026-07-02T00:00:00Z", "end": "2026-07-01T00:00:00Z"}`:                    "end",
		`{"start": "yesterday", "end": "2026-07-01T00:00:00Z"}`:                               "start",
		`{"start": "2026-07-01T00:00:00Z", "end": "2026-07-02T00:00:00Z", "project_id": "x"}`: "project_id",
	} {
		r := s.call(t, "POST", "/v1/pricing/reprice", adminToken, body).must(t, http.StatusUnprocessableEntity)
		if !strings.HasPrefix(errMessage(r), field+":") {
			t.Errorf("%s: %s, want the error to name %s", body, r.Raw, field)
		}
	}

	// Each acme call: 1000 × $2/M + 500 × $8/M = $0.006. The client's $0.5
	// stays; its catalogue cost is filled in. claude-sonnet-4-5 is unchanged.
	want := `{"changes":[{"events":1,"model":"ACME-LLM-9000","new_total":0.006,"old_total":0},` +
		`{"events":2,"model":"acme-llm-9000","new_total":0.506,"old_total":0.5}],"dry_run":true,"events":3,` +
		`"events_refused":0,"new_total":0.512,"old_total":0.5}`
	dry := s.call(t, "POST", "/v1/pricing/reprice", adminToken, window).must(t, http.StatusOK)
	if got := report(dry); got != want {
		t.Fatalf("dry run\n got %s\nwant %s", got, want)
	}
	if dry.Body["price_version"] != imp.Body["version"] {
		t.Errorf("price_version %v, import %v", dry.Body["price_version"], imp.Body["version"])
	}
	for id, e := range s.listed(t, key) {
		if fmt.Sprint(e) != fmt.Sprint(before[id]) {
			t.Fatalf("the dry run changed %s: %v", id, e)
		}
	}

	run := map[string]any{"start": window["start"], "end": window["end"], "dry_run": false, "project_id": projectID}
	real := s.call(t, "POST", "/v1/pricing/reprice", adminToken, run).must(t, http.StatusOK)
	if got := report(real); got != strings.Replace(want, `"dry_run":true`, `"dry_run":false`, 1) {
		t.Fatalf("real run reported %s", got)
	}
	after := s.listed(t, key)
	for _, id := range []string{"u1", "u2"} {
		e := after[id]
		if fmt.Sprint(e["cost"]) != "0.006" || e["priced"] != true || e["price_version"] != imp.Body["version"] {
			t.Errorf("%s after the run: %v", id, e)
		}
	}
	if c := after["client"]; fmt.Sprint(c["cost"]) != "0.5" || c["cost_provided"] != true || fmt.Sprint(c["catalogue_cost"]) != "0.006" {
		t.Errorf("client cost after the run: %v", c)
	}
	if fmt.Sprint(after["known"]) != fmt.Sprint(before["known"]) {
		t.Errorf("an event whose price did not change was touched: %v", after["known"])
	}
	// Every event's rates can be looked up by its price_version.
	v := s.call(t, "GET", "/v1/pricing/versions/"+fmt.Sprint(after["u1"]["price_version"])+"?model=acme-llm-9000", "", nil).
		must(t, http.StatusOK)
	if m := v.Body["models"].([]any); len(m) != 1 || fmt.Sprint(m[0].(map[string]any)["input_per_1k"]) != "0.002" {
		t.Errorf("u1's rates: %s", v.Raw)
	}
	v = s.call(t, "GET", "/v1/pricing/versions/"+fmt.Sprint(after["known"]["price_version"]), "", nil).must(t, http.StatusOK)
	if v.Body["source"] != "builtin-2026-11" || num(t, v.Body["total"]) < 100 {
		t.Errorf("the built-in version: source %v total %v", v.Body["source"], v.Body["total"])
	}
	s.call(t, "GET", "/v1/pricing/versions/no-such-version", "", nil).must(t, http.StatusNotFound)

	again := s.call(t, "POST", "/v1/pricing/reprice", adminToken, window).must(t, http.StatusOK)
	if num(t, again.Body["events"]) != 0 {
		t.Errorf("nothing should be left to re-price: %s", again.Raw)
	}
}

// report is the reply without the fields that vary between runs.
func report(r response) string {
	b := map[string]any{}
	for k, v := range r.Body {
		if k != "price_version" && k != "start" && k != "end" {
			b[k] = v
		}
	}
	out, _ := json.Marshal(b)
	return string(out)
}
