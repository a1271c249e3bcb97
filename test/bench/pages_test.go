package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/timings"
)

// dashPages are the dashboard's pages (target: each renders in at most
// 300 ms of server time at 10 M events), timed on the seeded project over
// every range with a browser's session cookie: the page reads its reports
// in process, renders and sends the HTML.
var dashPages = []string{"/", "/agents", "/workflows", "/traces", "/guardrails", "/models", "/settings"}

// dashSession registers a user over HTTP, makes them an admin of the
// seeded project (in the store: the bench's setup, not what it times), and
// returns the session cookie a browser would carry.
func dashSession(b *testing.B, srv *llmcost, db *postgres.DB, projectID string) string {
	email := fmt.Sprintf("dash%d@example.com", time.Now().UnixNano())
	body, _ := json.Marshal(map[string]any{"email": email, "password": "correct horse battery", "accept_terms": true,
		"accept_privacy": true, "terms_version": "2026-01-01", "privacy_version": "2026-01-01"})
	status, raw, err := srv.do("POST", "/v1/auth/register", "", body)
	if err != nil || status != http.StatusCreated {
		b.Fatalf("register: %d %v %s", status, err, raw)
	}
	var reg struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		b.Fatal(err)
	}
	ctx, now := context.Background(), time.Now()
	if _, err := db.Invite(ctx, projectID, email, "admin", reg.User.ID, now, now.Add(-time.Hour)); err != nil {
		b.Fatal(err)
	}
	if _, err := db.AcceptInvitation(ctx, projectID, reg.User.ID, email, now, now.Add(-time.Hour)); err != nil {
		b.Fatal(err)
	}
	return "llmcost_session=" + reg.AccessToken
}

// timePages times every dashboard page over every range, and one run's
// trace page (no range) as "/traces/{trace_id}".
func timePages(b *testing.B, srv *llmcost, cookie, projectID, traceID string) []timing {
	var out []timing
	for _, p := range dashPages {
		t := timing{name: "page " + p, served: true, p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
		for _, rng := range ranges {
			q := url.Values{"project": {projectID}, "range": {rng}}
			t.p50[rng], t.p95[rng] = timePage(b, srv, cookie, p+"?"+q.Encode())
		}
		out = append(out, t)
	}
	tr := timing{name: "page /traces/{trace_id}", served: true, p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
	tr.p50[""], tr.p95[""] = timePage(b, srv, cookie, "/traces/"+url.PathEscape(traceID)+"?project="+projectID)
	return append(out, tr)
}

// timePage warms a page up and times it timedRuns times; anything but a
// 200 HTML page fails the benchmark (a 303 is a session that did not work).
func timePage(b *testing.B, srv *llmcost, cookie, path string) (p50, p95 time.Duration) {
	get := func() {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL+path, nil)
		req.Header.Set("Cookie", cookie)
		resp, err := srv.client.Transport.RoundTrip(req) // no redirects followed
		if err != nil {
			b.Fatalf("GET %s: %v", path, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			b.Fatalf("GET %s: %d %.300s", path, resp.StatusCode, raw)
		}
	}
	for range warmupRuns {
		get()
	}
	took := make([]time.Duration, timedRuns)
	for i := range took {
		start := time.Now()
		get()
		took[i] = time.Since(start)
	}
	slices.Sort(took)
	return timings.Percentile(took, 50), timings.Percentile(took, 95)
}

// printPages writes the page timings, p50 / p95 in ms, and the slowest
// p95 against the 300 ms target.
func printPages(ts []timing) {
	fmt.Printf("\n| Dashboard page | %s |\n|---|%s\n", strings.Join(ranges, " p50 / p95 (ms) | ")+" p50 / p95 (ms)",
		strings.Repeat("---|", len(ranges)))
	var worst time.Duration
	for _, t := range ts {
		fmt.Printf("| %s |", t.name)
		if _, ok := t.p50[""]; ok {
			fmt.Printf(" %s / %s (no range) |\n", ms(t.p50[""]), ms(t.p95[""]))
			worst = max(worst, t.p95[""])
			continue
		}
		for _, r := range ranges {
			fmt.Printf(" %s / %s |", ms(t.p50[r]), ms(t.p95[r]))
			worst = max(worst, t.p95[r])
		}
		fmt.Println()
	}
	fmt.Printf("\nslowest page p95: %s ms (target: 300 ms at 10 M events)\n", ms(worst))
}

// BenchmarkDashboardPages times only the dashboard's pages on the seeded
// (or reused) dataset; BenchmarkAnalytics times them too, after ingest and
// the reports. Run it with make bench-pages.
func BenchmarkDashboardPages(b *testing.B) {
	spec := specFromEnv(b)
	ds := openDataset(b, analyticsDataset, spec)
	for range b.N {
		srv := startLLMCost(b, ds.server.URL())
		trace := benchdata.TraceID(spec.Days-1, 0)
		pages := timePages(b, srv, dashSession(b, srv, ds.db, ds.state.ProjectID), ds.state.ProjectID, trace)
		srv.stop()
		printPages(pages)
		b.ReportMetric(float64(worstPage(pages).Microseconds())/1000, "worst_page_p95_ms")
	}
}

// worstPage is the slowest p95 of any page and range.
func worstPage(ts []timing) time.Duration {
	var worst time.Duration
	for _, t := range ts {
		for _, d := range t.p95 {
			worst = max(worst, d)
		}
	}
	return worst
}
