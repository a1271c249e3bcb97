package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prometheusBinary is the Prometheus server: LLMCOST_PROMETHEUS, else
// prometheus on PATH (Debian's package, installed by
// scripts/ensure-promtool, which make test runs). Missing, the test fails:
// it is never skipped, on CI or anywhere else.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LLMCOST_PROMETHEUS"); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("the prometheus server is missing: run scripts/ensure-promtool (make test does) or set LLMCOST_PROMETHEUS")
	}
	return p
}

// A real Prometheus scrapes /v1/metrics with the project's key as the scrape
// job of docs/guardrails.md does, and the values it stored are the analytics
// overview's.
func TestPrometheusScrapesMetrics(t *testing.T) {
	bin := prometheusBinary(t)
	t0 := time.Now()
	s := start(t, nil)
	_, project, key := s.account(t)
	var events []any
	for i, m := range []string{"gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5"} {
		events = append(events, ev(fmt.Sprintf("prom-%d", i), m, 1000*(i+1), 100*(i+1), nil))
	}
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": project, "events": events}).must(t, http.StatusOK)
	ov := s.call(t, "GET", "/v1/analytics/overview?range=24h", key, nil).must(t, http.StatusOK)

	dir := t.TempDir()
	config := fmt.Sprintf(`global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: llmcost
    metrics_path: /v1/metrics
    params: {range: [24h]}
    authorization: {credentials: %s}
    static_configs: [{targets: [%q]}]
`, key, strings.TrimPrefix(s.URL, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})

	// Each gauge as Prometheus stored it from its first successful scrape.
	want := map[string]string{"service_calls": "total_calls", "service_cost_usd": "total_cost", "service_tokens": "total_tokens"}
	got := map[string]float64{}
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < len(want) {
		if time.Now().After(deadline) {
			up, _ := promQuery(t, addr, `up`)
			t.Fatalf("no scrape stored within 30 s (up %v); prometheus said:\n%s", up, out.String())
		}
		time.Sleep(200 * time.Millisecond)
		for metric := range want {
			if v, ok := promQuery(t, addr, metric+`{job="llmcost"}`); ok {
				got[metric] = v
			}
		}
	}
	t.Logf("scraped after %s", time.Since(t0))
	for metric, field := range want {
		report, err := strconv.ParseFloat(fmt.Sprint(ov.Body[field]), 64)
		if err != nil || report == 0 {
			t.Fatalf("overview %s: %v (%v)", field, ov.Body[field], err)
		}
		if math.Abs(got[metric]-report) > 1e-12*math.Max(1, report) {
			t.Errorf("Prometheus stored %s = %v, the overview's %s is %v", metric, got[metric], field, report)
		}
	}
	if up, ok := promQuery(t, addr, `up{job="llmcost"}`); !ok || up != 1 {
		t.Errorf("up = %v (%v)", up, ok)
	}
}

// promQuery asks Prometheus' query API for an instant vector of one
// sample and returns its value; ok is false while there is none (or
// Prometheus is not answering yet).
func promQuery(t *testing.T, addr, query string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" || len(body.Data.Result) != 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(fmt.Sprint(body.Data.Result[0].Value[1]), 64)
	if err != nil {
		t.Fatalf("%s: value %v", query, body.Data.Result[0].Value[1])
	}
	return v, true
}
