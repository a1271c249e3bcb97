package apiserver

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// raw runs a GET with headers and returns the recorder, body unread.
func (e *env) raw(path, bearer string, headers map[string]string) *httptest.ResponseRecorder {
	e.t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// readCSV parses a CSV body into its header and records.
func readCSV(t *testing.T, r io.Reader) ([]string, [][]string) {
	t.Helper()
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("not CSV with a header: %v", err)
	}
	return recs[0], recs[1:]
}

// column is the values of a CSV column by name.
func column(t *testing.T, header []string, rows [][]string, name string) []string {
	t.Helper()
	for i, h := range header {
		if h == name {
			out := make([]string, len(rows))
			for j, r := range rows {
				out[j] = r[i]
			}
			return out
		}
	}
	t.Fatalf("no column %s in %v", name, header)
	return nil
}

// sumUSD adds exact decimal USD texts in nano-USD.
func sumUSD(t *testing.T, values []string) int64 {
	t.Helper()
	var total int64
	for _, v := range values {
		neg := strings.HasPrefix(v, "-")
		n, err := pricing.ParseCostNano(strings.TrimPrefix(v, "-"))
		if err != nil {
			t.Fatalf("%q is not an exact decimal: %v", v, err)
		}
		if neg {
			n = -n
		}
		total += n
	}
	return total
}

// seedMany stores n calls one second apart from start, every seventh
// pair sharing a timestamp (so the order's tie-break is exercised).
func (e *env) seedMany(project string, start time.Time, n int) {
	e.t.Helper()
	for lo := 0; lo < n; lo += 1000 {
		var batch []event.Event
		for i := lo; i < min(lo+1000, n); i++ {
			at := start.Add(time.Duration(i) * time.Second)
			if i%7 == 1 {
				at = start.Add(time.Duration(i-1) * time.Second)
			}
			batch = append(batch, event.Event{ProjectID: project, Source: "batch", EventID: fmt.Sprintf("call-%05d", i),
				AgentName: "bulk", Model: "m1", InputTokens: 10, OutputTokens: 1, TotalTokens: 11, CostNano: int64(i + 1),
				CatalogueCostNano: int64(i + 1), Priced: true, Success: true, Timestamp: at,
				Metadata: []byte(`{"note":"=cmd"}`)})
		}
		if _, err := e.db.Write(context.Background(), batch, nil); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestReportCSVMatchesJSON(t *testing.T) {
	e := newEnv(t)
	u := e.register("csv")
	e.seedCalls(u.ProjectID, e.clock.Now())

	var ov wire.Overview
	mustJSON(t, e.must(e.do("GET", "/v1/analytics/overview?range=7d", u.Key, nil), 200).Raw, &ov)
	rec := e.raw("/v1/analytics/overview?range=7d&format=csv", u.Key, nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("overview CSV: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	header, rows := readCSV(t, rec.Body)
	if len(rows) != 1 || sumUSD(t, column(t, header, rows, "total_cost")) != int64(ov.TotalCost) ||
		column(t, header, rows, "total_calls")[0] != fmt.Sprint(ov.TotalCalls) {
		t.Errorf("overview CSV %v %v, JSON %+v", header, rows, ov)
	}

	for _, path := range []string{"/v1/analytics/models?range=7d", "/v1/analytics/agents?range=7d", "/v1/analytics/by/billing?range=7d"} {
		var list []map[string]json.RawMessage
		mustJSON(t, e.must(e.do("GET", path, u.Key, nil), 200).Raw, &list)
		rec := e.raw(path, u.Key, map[string]string{"Accept": "text/csv"})
		header, rows := readCSV(t, rec.Body)
		if len(rows) != len(list) || len(header) != len(list[0]) {
			t.Fatalf("%s: %d rows × %d columns, JSON %d × %d", path, len(rows), len(header), len(list), len(list[0]))
		}
		var jsonTotal int64
		for _, item := range list {
			jsonTotal += sumUSD(t, []string{string(item["total_cost"])})
		}
		if got := sumUSD(t, column(t, header, rows, "total_cost")); got != jsonTotal || got != int64(ov.TotalCost) {
			t.Errorf("%s: CSV total %d, JSON %d, overview %d", path, got, jsonTotal, ov.TotalCost)
		}
	}

	// full lists its time series; the buckets' cost adds up to the overview's.
	header, rows = readCSV(t, e.raw("/v1/analytics/full?range=7d&format=csv", u.Key, nil).Body)
	if got := sumUSD(t, column(t, header, rows, "cost")); got != int64(ov.TotalCost) {
		t.Errorf("full CSV cost %d, want %d", got, ov.TotalCost)
	}

	r := e.must(e.do("GET", "/v1/analytics/overview?format=xml", u.Key, nil), 422)
	if msg := r.obj("error")["message"].(string); !strings.HasPrefix(msg, "format: ") {
		t.Errorf("bad format message %q", msg)
	}
}

func TestReportCSVNeedsExportData(t *testing.T) {
	m := newEnv(t)
	o, v := m.register("owner"), m.register("viewer")
	m.verify(o)
	m.verify(v)
	m.must(m.do("POST", "/v1/projects/"+o.ProjectID+"/members", o.Access, map[string]string{"email": v.Email, "role": "viewer"}), 201)
	m.must(m.do("POST", "/v1/projects/"+o.ProjectID+"/invitations/accept", v.Access, nil), 200)
	q := "?project_id=" + url.QueryEscape(o.ProjectID)
	m.must(m.do("GET", "/v1/analytics/overview"+q, v.Access, nil), 200)
	m.must(m.do("GET", "/v1/analytics/overview"+q+"&format=csv", v.Access, nil), 403)
	m.must(m.do("GET", "/v1/exports/calls"+q+"&from=2026-01-01", v.Access, nil), 403)
	m.must(m.do("GET", "/v1/exports/focus"+q+"&from=2026-01-01&to=2026-02-01", v.Access, nil), 403)
	if rec := m.raw("/v1/analytics/overview"+q+"&format=csv", o.Access, nil); rec.Code != 200 {
		t.Errorf("owner's CSV: %d", rec.Code)
	}
}

func mustJSON(t *testing.T, raw string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
}

func TestDashboardDownloadsCSV(t *testing.T) {
	e := newEnv(t)
	o, v := e.register("dlowner"), e.register("dlviewer")
	e.verify(v)
	e.must(e.do("POST", "/v1/projects/"+o.ProjectID+"/members", o.Access, map[string]string{"email": v.Email, "role": "viewer"}), 201)
	e.must(e.do("POST", "/v1/projects/"+o.ProjectID+"/invitations/accept", v.Access, nil), 200)
	e.seedCalls(o.ProjectID, e.clock.Now())
	q := "?project=" + o.ProjectID + "&range=7d"

	owners := e.browser()
	owners.signIn(o.Email)
	owners.must(owners.get("/models"+q), 200, `id="models-csv" href="/export/models.csv?project=`)
	got := owners.must(owners.get("/export/models.csv"+q), 200)
	api := e.raw("/v1/analytics/models?range=7d&format=csv", o.Key, nil)
	if got.Body != api.Body.String() || !strings.HasPrefix(got.Body, "model,total_calls,") {
		t.Errorf("download:\n%s\nAPI:\n%s", got.Body, api.Body.String())
	}
	owners.must(owners.get("/export/nothing.csv"+q), 404)

	// Every report table of the run pages and the chargeback page offers
	// its download, and each is the API's CSV of that report.
	lat := int64(300)
	run := event.Event{ProjectID: o.ProjectID, EventID: "run1", AgentName: "planner", Model: "m1", InputTokens: 10,
		OutputTokens: 1, TotalTokens: 11, CostNano: 900, Priced: true, Success: true, LatencyMS: &lat, Source: "batch",
		Timestamp: e.clock.Now().Add(-2 * time.Hour), TraceID: "trace-1", SpanID: "s1", Workflow: "wf",
		StepName: "plan", Metadata: []byte(`{"team":"payments"}`)}
	if _, err := e.db.Write(context.Background(), []event.Event{run}, nil); err != nil {
		t.Fatal(err)
	}
	e.must(e.do("PUT", "/v1/projects/"+o.ProjectID+"/tags", o.Access, map[string]any{"keys": []string{"team"}}), 200)
	owners.must(owners.get("/workflows"+q), 200, `id="workflows-csv"`, `id="outcomes-csv"`, `id="steps-csv"`)
	owners.must(owners.get("/traces"+q), 200, `id="traces-csv"`)
	owners.must(owners.get("/chargeback"+q+"&key=team"), 200, `id="chargeback-csv" href="/export/chargeback.csv?`)
	for name, route := range map[string]string{"workflows": "/v1/analytics/workflows", "outcomes": "/v1/analytics/workflows/outcomes",
		"steps": "/v1/analytics/workflows/steps", "repeated-work": "/v1/analytics/workflows/repeated-work",
		"traces": "/v1/analytics/traces", "chargeback": "/v1/analytics/by/tag.team"} {
		got := owners.get("/export/" + name + ".csv" + q + "&key=team")
		api := e.raw(route+"?range=7d&format=csv", o.Key, nil)
		if got.Status != 200 {
			t.Errorf("%s download: %d (API %d %s)", name, got.Status, api.Code, api.Body.String())
			continue
		}
		if api.Code != 200 || got.Body != api.Body.String() || !strings.Contains(got.Body, ",") {
			t.Errorf("%s download:\n%s\nAPI (%d):\n%s", name, got.Body, api.Code, api.Body.String())
		}
	}
	owners.must(owners.get("/export/chargeback.csv"+q+"&key=nope"), 422)

	viewers := e.browser()
	viewers.signIn(v.Email)
	if p := viewers.must(viewers.get("/models"+q), 200); strings.Contains(p.Body, "models-csv") {
		t.Error("a viewer is offered a download")
	}
	viewers.must(viewers.get("/export/models.csv"+q), 403)
}
