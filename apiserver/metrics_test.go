package apiserver

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// promtool is the promtool binary (scripts/ensure-promtool installs it).
func promtool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LLMCOST_PROMTOOL"); p != "" {
		return p
	}
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is missing: run scripts/ensure-promtool (make test does)")
	}
	return p
}

// samples parses the exposition's sample lines: name{labels} → value.
func samples(t *testing.T, text string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func TestMetricsMatchAnalyticsAndPassPromtool(t *testing.T) {
	e := newEnv(t)
	u := e.register("metrics")
	p := u.ProjectID
	e.seedCalls(p, e.clock.Now())
	var calls []guardCall
	for i := range 25 { // more agents and models than the label bound
		calls = append(calls, guardCall{fmt.Sprintf("m%d", i), fmt.Sprintf("agent-%02d", i), fmt.Sprintf("model-%02d", i),
			"", "", int64(1000 * (i + 1)), time.Duration(i+1) * time.Minute})
	}
	e.writeCalls(p, calls)
	e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Access, map[string]any{"budget": 1}), 200)

	r := e.must(e.do("GET", "/v1/metrics", u.Key, nil), 200)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	cmd := exec.Command(promtool(t), "check", "metrics")
	cmd.Stdin = strings.NewReader(r.Raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\n%s", err, out, r.Raw)
	}
	got := samples(t, r.Raw)
	ov := e.must(e.do("GET", "/v1/analytics/overview?range=24h", u.Key, nil), 200)
	cost, _ := strconv.ParseFloat(fmt.Sprint(ov.Body["total_cost"]), 64)
	if got["service_calls"] != ov.Body["total_calls"].(float64) || math.Abs(got["service_cost_usd"]-cost) > 1e-12 ||
		got["service_tokens"] != ov.Body["total_tokens"].(float64) {
		t.Errorf("metrics %v vs overview %s", got, ov.Raw)
	}
	models := e.must(e.do("GET", "/v1/analytics/models?range=24h", u.Key, nil), 200)
	for _, m := range models.List[:20] {
		row := m.(map[string]any)
		c, _ := strconv.ParseFloat(fmt.Sprint(row["total_cost"]), 64)
		if v, ok := got[`service_model_cost_usd{model="`+row["model"].(string)+`"}`]; !ok || math.Abs(v-c) > 1e-12 {
			t.Errorf("model %s: metric %v, report %v", row["model"], v, c)
		}
	}
	var agentSeries, modelSeries int
	for k := range got {
		agentSeries += strings.Count(k, "service_agent_cost_usd{")
		modelSeries += strings.Count(k, "service_model_cost_usd{")
	}
	if agentSeries != 21 || modelSeries != 21 || got[`service_agent_cost_usd{agent="other"}`] <= 0 {
		t.Errorf("label bound: %d agent and %d model series", agentSeries, modelSeries)
	}
	if _, ok := got["service_budget_utilization_percent"]; !ok {
		t.Errorf("no budget gauges with a budget set:\n%s", r.Raw)
	}
	if _, ok := got["service_budget_remaining_usd"]; !ok {
		t.Errorf("no remaining gauge:\n%s", r.Raw)
	}
	e.must(e.do("GET", "/v1/metrics?range=2d", u.Key, nil), 422)
	e.must(e.do("GET", "/v1/metrics?project_id="+p, u.Access, nil), 200)
}

func TestPolicyETagAndWebhookRules(t *testing.T) {
	e := newEnv(t)
	u := e.register("policy")
	p := u.ProjectID
	e.setGuardrails(u, p)
	r := e.must(e.do("GET", "/v1/guardrails/policy", u.Key, nil), 200)
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") != "private, max-age=30" || len(r.Body["guardrails"].([]any)) != 3 ||
		r.obj("tool_tags")["delete_row"] != "write" || r.obj("budget")["enabled"] != false {
		t.Fatalf("policy: %v %s", r.Header, r.Raw)
	}
	req := e.doWithHeader("GET", "/v1/guardrails/policy", u.Key, "If-None-Match", etag)
	if req.Status != 304 {
		t.Fatalf("If-None-Match: status %d", req.Status)
	}
	e.must(e.do("DELETE", "/v1/projects/"+p+"/guardrails/free", u.Access, nil), 204)
	if e.doWithHeader("GET", "/v1/guardrails/policy", u.Key, "If-None-Match", etag).Status != 200 {
		t.Fatal("a changed policy must not answer 304")
	}
	list := e.must(e.do("GET", "/v1/guardrails", u.Key, nil), 200)
	if len(list.List) != 2 {
		t.Errorf("guardrails: %s", list.Raw)
	}
	// Replacing is whole: omitted fields take their defaults.
	g := e.must(e.do("PUT", "/v1/projects/"+p+"/guardrails", u.Access, map[string]any{"agent_name": "reader"}), 200)
	if g.Body["allowed_tools"] != nil || g.Body["read_only"] != false || g.Body["max_cost_per_run_usd"] != nil || g.Body["enabled"] != true {
		t.Errorf("replaced guardrail: %s", g.Raw)
	}
	for _, bad := range []map[string]any{{}, {"agent_name": "x", "max_tool_calls_per_run": 0}, {"agent_name": "x", "max_cost_per_run_usd": -1},
		{"agent_name": "x", "allowed_tools": []string{"a", "a"}}, {"agent_name": "x", "allowed_models": []string{"gpt-4o", "GPT-4o"}},
		{"agent_name": "x", "allowed_tools": []string{""}}} {
		e.must(e.do("PUT", "/v1/projects/"+p+"/guardrails", u.Access, bad), 422)
	}
	e.must(e.do("PUT", "/v1/projects/"+p+"/guardrails/tool-tags", u.Access, map[string]string{"tool_name": "x", "access": "exec"}), 422)
	e.must(e.do("PUT", "/v1/projects/"+p+"/guardrails", u.Key, map[string]any{"agent_name": "x"}), 403)

	hook := "/v1/projects/" + p + "/webhook"
	for _, bad := range []map[string]any{{"url": "http://hooks.example.com/x", "secret": "0123456789abcdef"},
		{"url": "https://127.0.0.1/x", "secret": "0123456789abcdef"}, {"url": "https://169.254.169.254/", "secret": "0123456789abcdef"},
		{"url": "https://localhost/x", "secret": "0123456789abcdef"}, {"url": "https://hooks.example.com/x", "secret": "short"},
		{"url": "https://hooks.example.com/x"}, {"url": nil, "secret": "0123456789abcdef"}} {
		e.must(e.do("PUT", hook, u.Access, bad), 422)
	}
	e.must(e.do("PUT", hook, u.Access, map[string]any{"url": "https://hooks.example.com/x", "secret": "0123456789abcdef"}), 200)
	e.must(e.do("PUT", hook, u.Access, map[string]any{"url": "https://hooks.example.com/y"}), 200) // keeps the secret
	r = e.must(e.do("GET", hook, u.Key, nil), 200)
	if r.str("url") != "https://hooks.example.com/y" || r.Body["secret_set"] != true || strings.Contains(r.Raw, "0123456789abcdef") {
		t.Errorf("webhook read: %s", r.Raw)
	}
	e.must(e.do("PUT", hook, u.Access, map[string]any{"url": nil}), 200)
	if r = e.must(e.do("GET", hook, u.Key, nil), 200); r.Body["url"] != nil || r.Body["secret_set"] != false {
		t.Errorf("cleared webhook: %s", r.Raw)
	}
}

func (e *env) doWithHeader(method, path, bearer, name, value string) resp {
	e.t.Helper()
	h := e.h
	return e.doAs(headerHandler{h, name, value}, method, path, bearer, nil)
}

type headerHandler struct {
	h           http.Handler
	name, value string
}

func (h headerHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Header.Set(h.name, h.value)
	h.h.ServeHTTP(w, r)
}
