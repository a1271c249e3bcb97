package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestLagStats: the worst and nearest-rank p95 per merger, over the
// samples up to the given time only, a merger never reported having none.
func TestLagStats(t *testing.T) {
	var samples []lagSample
	for i := 1; i <= 20; i++ {
		samples = append(samples, lagSample{elapsed: time.Duration(i) * time.Second,
			mergers: map[string]mergerLag{"rollups": {Backlog: int64(i * 100), LagSeconds: float64(i) / 10}}})
	}
	samples = append(samples, lagSample{elapsed: 30 * time.Second, mergers: map[string]mergerLag{"rollups": {Backlog: 1e6, LagSeconds: 99}}})
	got := lagStats(samples, 20*time.Second)
	want := lagStat{n: 20, maxBacklog: 2000, p95Backlog: 1900, maxLag: 2.0, p95Lag: 1.9}
	if got["rollups"] != want {
		t.Errorf("rollups until 20s: %+v, want %+v", got["rollups"], want)
	}
	if all := lagStats(samples, 0)["rollups"]; all.n != 21 || all.maxBacklog != 1e6 || all.maxLag != 99 {
		t.Errorf("rollups, whole series: %+v", all)
	}
	if got["runs"].n != 0 {
		t.Errorf("runs never reported: %+v", got["runs"])
	}
}

// TestLagRows: one row per step, the last sample of each, the final sample
// always kept; steps without a sample have no row.
func TestLagRows(t *testing.T) {
	var samples []lagSample
	for _, s := range []int{1, 5, 9, 10, 14, 35, 36} {
		samples = append(samples, lagSample{elapsed: time.Duration(s) * time.Second, acked: int64(s)})
	}
	var got []int64
	for _, r := range lagRows(samples, 10*time.Second) {
		got = append(got, r.acked)
	}
	want := []int64{9, 14, 36}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("rows %v, want %v", got, want)
	}
	if lagStep(5*time.Minute) != 10*time.Second || lagStep(2*time.Hour) != time.Minute {
		t.Error("lagStep: 10 s under ten minutes, a minute from then on")
	}
}

// TestRetryAfter: seconds, fractions, and 1 s when the header is absent
// or a date (which the server does not send).
func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"3": 3 * time.Second, "0.5": 500 * time.Millisecond, "": time.Second,
		"Wed, 21 Oct 2015 07:28:00 GMT": time.Second} {
		if got := retryAfter(h); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", h, got, want)
		}
	}
}

// TestReportTarget: every report timed has its target (docs/performance.md).
func TestReportTarget(t *testing.T) {
	for name, want := range map[string]time.Duration{"overview": 50 * time.Millisecond, "by/tool": 50 * time.Millisecond,
		"workflows/steps": 150 * time.Millisecond, "traces": 150 * time.Millisecond,
		"workflows/distribution": 300 * time.Millisecond, "workflows/repeated-work": 300 * time.Millisecond,
		"agents/summary": 150 * time.Millisecond, "guardrails/compliance": 150 * time.Millisecond} {
		if got, ok := reportTarget(name); !ok || got != want {
			t.Errorf("reportTarget(%q) = %s %v, want %s", name, got, ok, want)
		}
	}
	for _, rd := range reportReads() {
		if _, ok := reportTarget(rd.name); !ok {
			t.Errorf("%s has no target", rd.name)
		}
	}
}

// TestSendBatchRetries: a 503 is back-pressure, slept off for its
// Retry-After and answered by sending the same batch again; any other
// error status stops the stream.
func TestSendBatchRetries(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch n := calls.Add(1); {
		case string(body) != "batch":
			w.WriteHeader(http.StatusBadRequest)
		case n <= 2:
			w.Header().Set("Retry-After", "0.01")
			w.WriteHeader(http.StatusServiceUnavailable)
		case n == 3:
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer ts.Close()
	srv := &llmcost{URL: ts.URL, client: ts.Client()}
	var st streamStats
	if err := sendBatch(context.Background(), srv, "key", []byte("batch"), &st); err != nil {
		t.Fatal(err)
	}
	if st.retries.Load() != 2 || time.Duration(st.retryWait.Load()) != 20*time.Millisecond || calls.Load() != 3 {
		t.Errorf("%d retries, %s slept, %d requests; want 2, 20ms, 3", st.retries.Load(), time.Duration(st.retryWait.Load()), calls.Load())
	}
	if err := sendBatch(context.Background(), srv, "key", []byte("batch"), &st); err == nil {
		t.Error("a 500 was taken for an acknowledgement")
	}
}

// TestHealthMergers: health's optional mergers object as the lead's
// change is to serve it, and its absence, which sends the bench to SQL.
func TestHealthMergers(t *testing.T) {
	body := `{"status":"ok","version":"x","timestamp":"t"}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	defer ts.Close()
	srv := &llmcost{URL: ts.URL, client: ts.Client()}
	if _, status, ok := healthMergers(srv); ok || status != 200 {
		t.Errorf("no mergers object: ok %v, status %d", ok, status)
	}
	body = `{"status":"ok","mergers":{"rollups":{"backlog":1200,"lag_seconds":1.5},"runs":{"backlog":3,"lag_seconds":0.25},` +
		`"alerts":{"backlog":0,"lag_seconds":0}}}`
	m, _, ok := healthMergers(srv)
	if !ok || m["rollups"] != (mergerLag{1200, 1.5}) || m["runs"] != (mergerLag{3, 0.25}) || m["alerts"] != (mergerLag{}) {
		t.Errorf("mergers %+v, ok %v", m, ok)
	}
}

func TestPacerSpacesBatchesAtTheRate(t *testing.T) {
	pace := pacer(20_000) // 1,000-call batches: one every 50 ms
	t0 := time.Now()
	for range 5 {
		pace(1000)
	}
	// The first goes at once, the fifth 200 ms later.
	if took := time.Since(t0); took < 200*time.Millisecond {
		t.Errorf("5 batches of 1,000 at 20,000 calls/s took %s, want at least 200 ms", took)
	}
	t0 = time.Now()
	unpaced := pacer(0)
	for range 1000 {
		unpaced(1000)
	}
	if took := time.Since(t0); took > 100*time.Millisecond {
		t.Errorf("unpaced: 1,000 batches took %s, want no wait", took)
	}
}

func TestServerTime(t *testing.T) {
	for h, want := range map[string]time.Duration{"app;dur=0.250": 250 * time.Microsecond, "app;dur=12": 12 * time.Millisecond,
		"": -1, "db;dur=3": -1, "app;dur=x": -1} {
		if got := serverTime(h); got != want {
			t.Errorf("serverTime(%q) = %s, want %s", h, got, want)
		}
	}
}

func TestProcSamplerCountsItsOwnProcess(t *testing.T) {
	cpu0, t0 := processCPU(), time.Now()
	p := startProcSampler(-1)
	for processCPU()-cpu0 < 300*time.Millisecond { // spin: 0.3 s of CPU, however busy the machine
	}
	cores := p.stopAndSum()
	used, wall := processCPU()-cpu0, time.Since(t0)
	got := time.Duration(cores[slices.Index(procGroups, "the benchmark (readers, pollers, sampler)")] * float64(wall))
	if d := got - used; d < -60*time.Millisecond || d > 60*time.Millisecond {
		t.Errorf("the benchmark's own CPU: %s by the sampler, %s by getrusage (all groups, in cores: %v)", got, used, cores)
	}
}
