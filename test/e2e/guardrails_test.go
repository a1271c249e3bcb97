package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/webhook"
)

const hookSecret = "e2e-webhook-secret-0123456789"

// receiver is an HTTPS webhook receiver on loopback that verifies every
// delivery with the secret and can be taken down (503) for a while.
type receiver struct {
	srv    *httptest.Server
	caFile string
	down   atomic.Bool
	failed atomic.Int32
	mu     sync.Mutex
	got    []webhook.Envelope
	bad    []string
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})
	if err := os.WriteFile(r.caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	if r.down.Load() {
		r.failed.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(req.Body)
	h := map[string]string{webhook.HeaderTimestamp: req.Header.Get(webhook.HeaderTimestamp),
		webhook.HeaderSignature: req.Header.Get(webhook.HeaderSignature)}
	var env webhook.Envelope
	_ = json.Unmarshal(body, &env)
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := req.Header.Get(webhook.HeaderSWTime)
	var unix int64
	fmt.Sscan(ts, &unix)
	switch {
	case !webhook.Verify(hookSecret, h, body, time.Now(), 5*time.Minute):
		r.bad = append(r.bad, "service signature: "+string(body))
	case req.Header.Get(webhook.HeaderSWSig) != webhook.StandardSignature(hookSecret, req.Header.Get(webhook.HeaderSWID), unix, body):
		r.bad = append(r.bad, "standard webhooks signature: "+string(body))
	case env.ID != req.Header.Get(webhook.HeaderSWID) || env.ProjectID == "" || env.CreatedAt == "":
		r.bad = append(r.bad, "envelope: "+string(body))
	}
	r.got = append(r.got, env)
	w.WriteHeader(http.StatusOK)
}

// byType counts deliveries of each type and checks no id arrived twice.
func (r *receiver) byType(t *testing.T) map[string]int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out, seen := map[string]int{}, map[string]bool{}
	for _, e := range r.got {
		if seen[e.ID] {
			t.Errorf("delivery %s arrived twice", e.ID)
		}
		seen[e.ID] = true
		out[e.Type]++
	}
	for _, b := range r.bad {
		t.Errorf("delivery does not verify: %s", b)
	}
	return out
}

func (r *receiver) waitFor(t *testing.T, typ string, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for r.byType(t)[typ] < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d %s deliveries within %s, want %d", r.byType(t)[typ], typ, within, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *receiver) env() map[string]string {
	return withEnv(fastRetries, map[string]string{"LLMCOST_WEBHOOK_ALLOW_PRIVATE": "true", "LLMCOST_WEBHOOK_CA_FILE": r.caFile})
}

func agentCall(agent, model, id string, in int) map[string]any {
	e := ev(id, model, in, 100, nil)
	e["agent_name"] = agent
	return e
}

func TestSignedDeliveriesReachAReceiverThatWasDown(t *testing.T) {
	rcv := newReceiver(t)
	s := start(t, rcv.env())
	token, project, key := s.account(t)
	base := "/v1/projects/" + project
	s.call(t, "PUT", base+"/webhook", token, map[string]any{"url": rcv.srv.URL + "/hooks", "secret": hookSecret}).must(t, 200)
	test := s.call(t, "POST", base+"/webhook/test", token, nil).must(t, 200)
	if test.Body["delivered"] != true || fmt.Sprint(test.Body["status_code"]) != "200" {
		t.Fatalf("webhook test: %s", test.Raw)
	}
	s.call(t, "PUT", base+"/guardrails", token, map[string]any{"agent_name": "bot", "allowed_models": []string{"gpt-4o-mini"}}).must(t, 201)
	s.call(t, "PUT", base+"/budget", token, map[string]any{"budget": 0.001, "mode": "warn"}).must(t, 200)

	rcv.down.Store(true)
	batch := map[string]any{"project_id": project, "events": []any{agentCall("bot", "gpt-4o", "b1", 1000), agentCall("bot", "gpt-4o", "b2", 1000),
		agentCall("bot", "gpt-4o-mini", "b3", 10)}}
	s.call(t, "POST", "/v1/events/batch", key, batch).must(t, 200)
	deadline := time.Now().Add(15 * time.Second)
	for rcv.failed.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver saw %d attempts while down", rcv.failed.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	rcv.down.Store(false)
	rcv.waitFor(t, "budget.threshold_crossed", 3, 20*time.Second)
	rcv.waitFor(t, "guardrail.breach", 1, 20*time.Second)

	// The same breach within the hour, and spend past crossed thresholds: no new delivery.
	again := map[string]any{"project_id": project, "events": []any{agentCall("bot", "gpt-4o", "b4", 1000)}}
	s.call(t, "POST", "/v1/events/batch", key, again).must(t, 200)
	time.Sleep(2 * time.Second)
	got := rcv.byType(t)
	if got["guardrail.breach"] != 1 || got["budget.threshold_crossed"] != 3 || got["webhook.test"] != 1 {
		t.Fatalf("deliveries %v, want 1 breach, 3 crossings, 1 test", got)
	}
	rcv.mu.Lock()
	for _, e := range rcv.got {
		if e.Type == "guardrail.breach" {
			var d map[string]any
			_ = json.Unmarshal(e.Data, &d)
			if d["agent_name"] != "bot" || d["kind"] != "undeclared_model" || d["subject"] != "gpt-4o" || d["count"] != 2.0 || d["limit"] != nil {
				t.Errorf("breach data %s", e.Data)
			}
		}
	}
	rcv.mu.Unlock()
	st := s.call(t, "GET", base+"/budget-state", key, nil).must(t, 200)
	if st.Body["exhausted"] != true || fmt.Sprint(st.Body["thresholds_crossed"]) != "[50 80 100]" {
		t.Errorf("budget state %s", st.Raw)
	}
}

func TestTwoInstancesCrossEachThresholdOnce(t *testing.T) {
	rcv := newReceiver(t)
	env := withEnv(rcv.env(), map[string]string{"LLMCOST_DATABASE_URL": pgtest.NewDatabase(t)})
	a, b := start(t, env), start(t, env)
	token, project, key := a.account(t)
	base := "/v1/projects/" + project
	a.call(t, "PUT", base+"/webhook", token, map[string]any{"url": rcv.srv.URL, "secret": hookSecret}).must(t, 200)
	thresholds := []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	// Each call of 1000 gpt-4o-mini input tokens and 100 output costs $0.00021.
	a.call(t, "PUT", base+"/budget", token, map[string]any{"budget": 0.0042, "thresholds": thresholds}).must(t, 200)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []*service{a, b}[w%2]
			for i := range 5 {
				batch := map[string]any{"project_id": project, "events": []any{agentCall("x", "gpt-4o-mini", fmt.Sprintf("w%d-%d", w, i), 1000)}}
				s.call(t, "POST", "/v1/events/batch", key, batch).must(t, 200)
			}
		}()
	}
	wg.Wait()
	rcv.waitFor(t, "budget.threshold_crossed", len(thresholds), 20*time.Second)
	time.Sleep(time.Second)
	if got := rcv.byType(t)["budget.threshold_crossed"]; got != len(thresholds) {
		t.Fatalf("%d crossing deliveries, want %d", got, len(thresholds))
	}
	seen := map[float64]int{}
	rcv.mu.Lock()
	for _, e := range rcv.got {
		if e.Type != "budget.threshold_crossed" {
			continue // the spend watch may also have alerted on the forecast
		}
		var d map[string]any
		_ = json.Unmarshal(e.Data, &d)
		th, _ := d["threshold"].(float64)
		seen[th]++
	}
	rcv.mu.Unlock()
	for _, th := range thresholds {
		if seen[float64(th)] != 1 {
			t.Errorf("threshold %d delivered %d times", th, seen[float64(th)])
		}
	}
	n := b.call(t, "GET", "/v1/notifications", token, nil).must(t, 200)
	crossings := 0
	for _, x := range n.Body["notifications"].([]any) {
		if x.(map[string]any)["type"] == "budget.threshold_crossed" {
			crossings++
		}
	}
	if crossings != len(thresholds) {
		t.Errorf("%d crossing notifications, want %d: %s", crossings, len(thresholds), n.Raw)
	}
}
