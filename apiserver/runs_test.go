package apiserver

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/semconv"
)

// runsNow is the fixed clock of the run tests: 24h is [03-07 10:07:30, now).
var runsNow = time.Date(2026, 3, 8, 10, 7, 30, 0, time.UTC)

// u is a thousandth of a dollar in nano-USD, to keep the figures readable.
const u = 1_000_000

// knownRuns are the hand-computed runs of docs/analytics.md "Runs": a
// nested run with a repeated pair of calls (no request hash), a retry loop
// repeating one request hash three times, a one-call run without outcome,
// a run whose first call is outside 24h, a run without workflow, an
// untraced call; outcomes include one for a run that has no calls.
func knownRuns(project string) ([]event.Event, []semconv.Outcome) {
	lat := func(v int64) *int64 { return &v }
	c := func(id, trace string, ago time.Duration, wf, step, tool, model string, in, cost int64) event.Event {
		return event.Event{ProjectID: project, EventID: id, AgentName: "planner", Model: model, InputTokens: in,
			OutputTokens: 10, TotalTokens: in + 10, CostNano: cost, Priced: true, Success: true, Source: "batch",
			Timestamp: runsNow.Add(-ago), TraceID: trace, Workflow: wf, StepName: step, ToolName: tool}
	}
	h := time.Hour
	ev := []event.Event{
		c("n1", "t-nested", 2*h, "research", "plan", "", "m1", 100, 1*u),
		c("n2", "t-nested", 2*h-time.Second, "research", "search", "web", "m1", 50, u*3/10),
		c("n3", "t-nested", 2*h-2*time.Second, "research", "search", "web", "m1", 50, u*3/10),
		c("n4", "t-nested", 2*h-10*time.Second, "research", "write", "", "m2", 500, 2*u),
		c("r1", "t-retry", h, "research", "fetch", "http", "m1", 80, u/5),
		c("r2", "t-retry", h-time.Second, "research", "fetch", "http", "m1", 80, u/5),
		c("r3", "t-retry", h-2*time.Second, "research", "fetch", "http", "m1", 80, u/5),
		c("r4", "t-retry", h-3*time.Second, "research", "fetch", "http", "m1", 80, u/5),
		c("p1", "t-plain", 3*h, "summarize", "summarize", "", "m2", 1000, 5*u),
		c("o1", "t-old", 30*h, "research", "plan", "", "m1", 100, 10*u),
		c("o2", "t-old", h, "research", "plan", "", "m1", 100, 10*u),
		c("w1", "t-nowf", 20*time.Minute, "", "", "", "m1", 5, u/10),
		c("x1", "", 10*time.Minute, "summarize", "summarize", "", "m1", 5, 99),
	}
	spans := map[string][2]string{"n1": {"s1", ""}, "n2": {"s2", "s1"}, "n3": {"s3", "s2"}, "n4": {"s4", "s1"}}
	lats := map[string]int64{"n1": 500, "n2": 200, "n3": 300, "n4": 1000, "r1": 100, "r2": 100, "r3": 100,
		"r4": 100, "p1": 2000}
	for i := range ev {
		e := &ev[i]
		e.SpanID, e.ParentSpanID = spans[e.EventID][0], spans[e.EventID][1]
		if l, ok := lats[e.EventID]; ok {
			e.LatencyMS = lat(l)
		}
		switch e.EventID {
		case "r1", "r2", "r3":
			e.RequestHash = "h1"
		case "r4":
			e.RequestHash = "h2"
		case "w1":
			e.AgentName = "coder"
		case "p1":
			e.AgentName = "coder"
		}
		if e.EventID == "r1" || e.EventID == "r2" {
			e.Success = false
		}
	}
	oc := []semconv.Outcome{{ProjectID: project, TraceID: "t-nested", Success: true, Label: "done"},
		{ProjectID: project, TraceID: "t-retry", Success: false},
		{ProjectID: project, TraceID: "t-nowf", Success: false},
		{ProjectID: project, TraceID: "t-outcome-only", Success: true}}
	return ev, oc
}

func runsEnv(t *testing.T) (*env, user) {
	e := newEnv(t)
	e.clock.mu.Lock()
	e.clock.now = runsNow
	e.clock.mu.Unlock()
	return e, e.register("runs")
}

// knownReports are the run reports and their hand-computed answers.
var knownReports = []struct{ path, want string }{
	{"/v1/analytics/workflows?range=24h", `[` +
		`{"workflow":"summarize","runs":1,"total_cost":0.005,"avg_cost_per_run":0.005,"max_cost_per_run":0.005,"total_calls":1,"avg_calls_per_run":1,"avg_steps_per_run":1,"max_depth":0,"success_rate":100},` +
		`{"workflow":"research","runs":2,"total_cost":0.0044,"avg_cost_per_run":0.0022,"max_cost_per_run":0.0036,"total_calls":8,"avg_calls_per_run":4,"avg_steps_per_run":2,"max_depth":2,"success_rate":75},` +
		`{"workflow":null,"runs":1,"total_cost":0.0001,"avg_cost_per_run":0.0001,"max_cost_per_run":0.0001,"total_calls":1,"avg_calls_per_run":1,"avg_steps_per_run":0,"max_depth":0,"success_rate":100}]`},
	{"/v1/analytics/workflows?range=24h&agent_name=coder&limit=1", `[` +
		`{"workflow":"summarize","runs":1,"total_cost":0.005,"avg_cost_per_run":0.005,"max_cost_per_run":0.005,"total_calls":1,"avg_calls_per_run":1,"avg_steps_per_run":1,"max_depth":0,"success_rate":100}]`},
	// 7d reads t-old (03-07) from the daily rollups, the rest from today's runs.
	{"/v1/analytics/workflows?range=7d&limit=1", `[` +
		`{"workflow":"research","runs":3,"total_cost":0.0244,"avg_cost_per_run":0.008133333,"max_cost_per_run":0.02,"total_calls":10,"avg_calls_per_run":3.33,"avg_steps_per_run":1.67,"max_depth":2,"success_rate":80}]`},
	{"/v1/analytics/workflows/outcomes?range=7d&limit=1", `[` +
		`{"workflow":"research","runs":3,"succeeded":1,"failed":1,"unknown":1,"cost_on_success":0.0036,"cost_on_failure":0.0008,"cost_per_success":0.0244,"success_rate":50}]`},
	{"/v1/analytics/workflows/tools?range=30d&agent_name=planner", `[` +
		`{"tool_name":"http","calls":4,"runs":1,"total_cost":0.0008,"total_tokens":360,"avg_latency_ms":100},` +
		`{"tool_name":"web","calls":2,"runs":1,"total_cost":0.0006,"total_tokens":120,"avg_latency_ms":250}]`},
	{"/v1/analytics/workflows/steps?range=24h", `[` +
		`{"workflow":"summarize","step_name":"summarize","calls":1,"runs":1,"calls_per_run":1,"cost_per_run":0.005,"total_cost":0.005,"avg_latency_ms":2000,"success_rate":100},` +
		`{"workflow":"research","step_name":"write","calls":1,"runs":1,"calls_per_run":1,"cost_per_run":0.002,"total_cost":0.002,"avg_latency_ms":1000,"success_rate":100},` +
		`{"workflow":"research","step_name":"plan","calls":1,"runs":1,"calls_per_run":1,"cost_per_run":0.001,"total_cost":0.001,"avg_latency_ms":500,"success_rate":100},` +
		`{"workflow":"research","step_name":"fetch","calls":4,"runs":1,"calls_per_run":4,"cost_per_run":0.0008,"total_cost":0.0008,"avg_latency_ms":100,"success_rate":50},` +
		`{"workflow":"research","step_name":"search","calls":2,"runs":1,"calls_per_run":2,"cost_per_run":0.0006,"total_cost":0.0006,"avg_latency_ms":250,"success_rate":100}]`},
	// 7d takes t-old in: plan is 3 calls in 2 runs; its calls carry no latency.
	{"/v1/analytics/workflows/steps?range=7d&workflow=research&limit=1", `[` +
		`{"workflow":"research","step_name":"plan","calls":3,"runs":2,"calls_per_run":1.5,"cost_per_run":0.0105,"total_cost":0.021,"avg_latency_ms":500,"success_rate":100}]`},
	// Over all agents and workflows, whole days come from run_tool_all_day.
	{"/v1/analytics/workflows/tools?range=30d", `[` +
		`{"tool_name":"http","calls":4,"runs":1,"total_cost":0.0008,"total_tokens":360,"avg_latency_ms":100},` +
		`{"tool_name":"web","calls":2,"runs":1,"total_cost":0.0006,"total_tokens":120,"avg_latency_ms":250}]`},
	{"/v1/analytics/workflows/tools?range=24h", `[` +
		`{"tool_name":"http","calls":4,"runs":1,"total_cost":0.0008,"total_tokens":360,"avg_latency_ms":100},` +
		`{"tool_name":"web","calls":2,"runs":1,"total_cost":0.0006,"total_tokens":120,"avg_latency_ms":250}]`},
	{"/v1/analytics/workflows/repeated-work?range=24h", `[` +
		`{"trace_id":"t-retry","workflow":"research","step_name":"fetch","tool_name":"http","model":"m1","occurrences":3,"spend":0.0006,"wasted_cost":0.0004,"first_seen":"2026-03-08T09:07:30Z"},` +
		`{"trace_id":"t-nested","workflow":"research","step_name":"search","tool_name":"web","model":"m1","occurrences":2,"spend":0.0006,"wasted_cost":0.0003,"first_seen":"2026-03-08T08:07:31Z"}]`},
	{"/v1/analytics/workflows/repeated-work?range=7d&limit=1", `[` +
		`{"trace_id":"t-old","workflow":"research","step_name":"plan","tool_name":null,"model":"m1","occurrences":2,"spend":0.02,"wasted_cost":0.01,"first_seen":"2026-03-07T04:07:30Z"}]`},
	{"/v1/analytics/workflows/outcomes?range=24h", `[` +
		`{"workflow":"summarize","runs":1,"succeeded":0,"failed":0,"unknown":1,"cost_on_success":0,"cost_on_failure":0,"cost_per_success":null,"success_rate":null},` +
		`{"workflow":"research","runs":2,"succeeded":1,"failed":1,"unknown":0,"cost_on_success":0.0036,"cost_on_failure":0.0008,"cost_per_success":0.0044,"success_rate":50},` +
		`{"workflow":null,"runs":1,"succeeded":0,"failed":1,"unknown":0,"cost_on_success":0,"cost_on_failure":0.0001,"cost_per_success":null,"success_rate":0}]`},
	// [0.0008, 0.0036]: p50 0.0022; p95 0.0008 + 0.95 × 0.0028; p99 with 0.99;
	// five buckets of 0.000532 up to p95, then the tail.
	{"/v1/analytics/workflows/distribution?range=24h&workflow=research&buckets=6", `{"workflow":"research","runs":2,"truncated":false,` +
		`"p50":0.0022,"p95":0.00346,"p99":0.003572,"max":0.0036,"tail_runs":1,"tail_threshold":0.00346,"tail_share_percent":81.82,"tail_ratio":1.62,"histogram":[` +
		`{"lower":0.0008,"upper":0.001332,"count":1,"is_tail":false},{"lower":0.001332,"upper":0.001864,"count":0,"is_tail":false},` +
		`{"lower":0.001864,"upper":0.002396,"count":0,"is_tail":false},{"lower":0.002396,"upper":0.002928,"count":0,"is_tail":false},` +
		`{"lower":0.002928,"upper":0.00346,"count":0,"is_tail":false},{"lower":0.00346,"upper":0.0036,"count":1,"is_tail":true}]}`},
	// 7d, default workflow: research (0.0244) outspends summarize; costs
	// [0.0008, 0.0036, 0.02]: p95 at position 1.9 = 0.0036 + 0.9 × 0.0164.
	{"/v1/analytics/workflows/distribution?range=7d&buckets=6", `{"workflow":"research","runs":3,"truncated":false,` +
		`"p50":0.0036,"p95":0.01836,"p99":0.019672,"max":0.02,"tail_runs":1,"tail_threshold":0.01836,"tail_share_percent":81.97,"tail_ratio":5.46,"histogram":[` +
		`{"lower":0.0008,"upper":0.004312,"count":2,"is_tail":false},{"lower":0.004312,"upper":0.007824,"count":0,"is_tail":false},` +
		`{"lower":0.007824,"upper":0.011336,"count":0,"is_tail":false},{"lower":0.011336,"upper":0.014848,"count":0,"is_tail":false},` +
		`{"lower":0.014848,"upper":0.01836,"count":0,"is_tail":false},{"lower":0.01836,"upper":0.02,"count":1,"is_tail":true}]}`},
	{"/v1/analytics/traces?range=24h", `[` +
		`{"trace_id":"t-plain","workflow":"summarize","calls":1,"total_cost":0.005,"max_depth":0,"failed_calls":0,"started_at":"2026-03-08T07:07:30Z","duration_ms":2000},` +
		`{"trace_id":"t-nested","workflow":"research","calls":4,"total_cost":0.0036,"max_depth":2,"failed_calls":0,"started_at":"2026-03-08T08:07:30Z","duration_ms":11000},` +
		`{"trace_id":"t-retry","workflow":"research","calls":4,"total_cost":0.0008,"max_depth":0,"failed_calls":2,"started_at":"2026-03-08T09:07:30Z","duration_ms":3100},` +
		`{"trace_id":"t-nowf","workflow":null,"calls":1,"total_cost":0.0001,"max_depth":0,"failed_calls":0,"started_at":"2026-03-08T09:47:30Z","duration_ms":0}]`},
	{"/v1/analytics/traces?range=7d&workflow=research&agent_name=planner&limit=1", `[` +
		`{"trace_id":"t-old","workflow":"research","calls":2,"total_cost":0.02,"max_depth":0,"failed_calls":0,"started_at":"2026-03-07T04:07:30Z","duration_ms":104400000}]`},
	{"/v1/analytics/traces/t-nested", `{"trace_id":"t-nested","workflow":"research","total_cost":0.0036,"total_calls":4,"max_depth":2,"duration_ms":11000,` +
		`"outcome":{"success":true,"label":"done","recorded_at":"X"},"spans":[` +
		`{"span_id":"s1","parent_span_id":null,"step_name":"plan","tool_name":null,"step_index":0,"depth":0,"model":"m1","cost":0.001,"latency_ms":500,"success":true},` +
		`{"span_id":"s2","parent_span_id":"s1","step_name":"search","tool_name":"web","step_index":1,"depth":1,"model":"m1","cost":0.0003,"latency_ms":200,"success":true},` +
		`{"span_id":"s3","parent_span_id":"s2","step_name":"search","tool_name":"web","step_index":2,"depth":2,"model":"m1","cost":0.0003,"latency_ms":300,"success":true},` +
		`{"span_id":"s4","parent_span_id":"s1","step_name":"write","tool_name":null,"step_index":3,"depth":1,"model":"m2","cost":0.002,"latency_ms":1000,"success":true}],` +
		`"steps":[{"name":"plan","calls":1,"total_cost":0.001,"total_tokens":110,"avg_latency_ms":500,"success_rate":100},` +
		`{"name":"search","calls":2,"total_cost":0.0006,"total_tokens":120,"avg_latency_ms":250,"success_rate":100},` +
		`{"name":"write","calls":1,"total_cost":0.002,"total_tokens":510,"avg_latency_ms":1000,"success_rate":100}],` +
		`"tools":[{"name":"web","calls":2,"total_cost":0.0006,"total_tokens":120,"avg_latency_ms":250,"success_rate":100}],"expired_before":null}`},
	{"/v1/analytics/traces/t-outcome-only", `{"trace_id":"t-outcome-only","workflow":null,"total_cost":0,"total_calls":0,"max_depth":0,"duration_ms":0,` +
		`"outcome":{"success":true,"label":null,"recorded_at":"X"},"spans":[],"steps":[],"tools":[],"expired_before":null}`},
	{"/v1/analytics/traces/t-plain", `{"trace_id":"t-plain","workflow":"summarize","total_cost":0.005,"total_calls":1,"max_depth":0,"duration_ms":2000,` +
		`"outcome":null,"spans":[{"span_id":"p1","parent_span_id":null,"step_name":"summarize","tool_name":null,"step_index":0,"depth":0,"model":"m2","cost":0.005,"latency_ms":2000,"success":true}],` +
		`"steps":[{"name":"summarize","calls":1,"total_cost":0.005,"total_tokens":1010,"avg_latency_ms":2000,"success_rate":100}],` +
		`"tools":[],"expired_before":null}`},
}

var recordedAt = regexp.MustCompile(`"recorded_at":"[^"]*"`)

func (e *env) runReport(key, path string) string {
	e.t.Helper()
	r := e.must(e.do("GET", path, key, nil), 200)
	return recordedAt.ReplaceAllString(r.Raw, `"recorded_at":"X"`)
}

// TestRunReportsKnownRuns checks every run report against figures computed
// by hand from knownRuns, sent in one batch.
func TestRunReportsKnownRuns(t *testing.T) {
	e, usr := runsEnv(t)
	ev, oc := knownRuns(usr.ProjectID)
	if _, err := e.db.Write(context.Background(), ev, oc); err != nil {
		t.Fatal(err)
	}
	for _, r := range knownReports {
		if got := e.runReport(usr.Key, r.path); got != r.want+"\n" && got != r.want {
			t.Errorf("%s\n got %s\nwant %s", r.path, got, r.want)
		}
	}
	// Another project's trace is 404 here, and so is an unknown one.
	other := e.register("runs-other")
	e.must(e.do("GET", "/v1/analytics/traces/t-nested", other.Key, nil), 404)
	e.must(e.do("GET", "/v1/analytics/traces/nope", usr.Key, nil), 404)
	for path, field := range map[string]string{
		"/v1/analytics/workflows/distribution?buckets=5":  "buckets",
		"/v1/analytics/workflows/distribution?buckets=61": "buckets",
		"/v1/analytics/traces?limit=501":                  "limit",
		"/v1/analytics/traces?limit=0":                    "limit",
		"/v1/analytics/workflows?limit=1001":              "limit",
		"/v1/analytics/workflows/steps?range=2d":          "range",
	} {
		r := e.must(e.do("GET", path, usr.Key, nil), 422)
		if msg := r.obj("error")["message"]; msg == nil || !regexp.MustCompile(`^`+field+`:`).MatchString(msg.(string)) {
			t.Errorf("%s: %s does not name %s", path, r.Raw, field)
		}
	}
	// No workflow with runs in the window (coder's only run there has none;
	// t-retry starts exactly at now − 1h, inside): the distribution is 404.
	e.must(e.do("GET", "/v1/analytics/workflows/distribution?range=1h&agent_name=coder", usr.Key, nil), 404)
	e.must(e.do("GET", "/v1/analytics/workflows/distribution?workflow=nope", usr.Key, nil), 404)
}

// TestRunReportsInPieces sends the same runs as TestRunReportsKnownRuns in
// pieces: outcomes first, calls newest first three at a time, then all of
// them again; every report must be identical.
func TestRunReportsInPieces(t *testing.T) {
	e, usr := runsEnv(t)
	ev, oc := knownRuns(usr.ProjectID)
	ctx := context.Background()
	if _, err := e.db.Write(ctx, nil, oc); err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(ev)
	slices.Reverse(rev)
	for i := 0; i < len(rev); i += 3 {
		if _, err := e.db.Write(ctx, rev[i:min(i+3, len(rev))], nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.db.Write(ctx, ev, oc)
	if err != nil || res.Stored != 0 {
		t.Fatalf("re-send stored %d (%v)", res.Stored, err)
	}
	for _, r := range knownReports {
		if got := e.runReport(usr.Key, r.path); got != r.want+"\n" && got != r.want {
			t.Errorf("%s in pieces\n got %s\nwant %s", r.path, got, r.want)
		}
	}
}
