package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
)

// The dashboard in a real browser: Debian's headless Chromium driven with
// chromedp against the built distribution. scripts/ensure-chromium (run
// by make test and .ci/run) installs it; without it this test fails, it
// never skips.

// chromium is the browser binary the test drives.
func chromium(t *testing.T) string {
	bin := os.Getenv("LLMCOST_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Chromium is missing (%v): run scripts/ensure-chromium (apt-get install chromium) or set LLMCOST_CHROMIUM", err)
	}
	return bin
}

// newBrowser starts a headless Chromium with a fresh profile. The flags
// keep it off the network: without them it dials update and sync
// services and hangs on a closed network.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
		// Chromium puts its shared-memory and singleton files under TMPDIR
		// (org.chromium.Chromium.*) and leaves them behind: a test
		// directory keeps /tmp clean.
		chromedp.Env("TMPDIR=" + t.TempDir()),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// run runs browser actions or fails the test.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// text is the visible text of the first element matching sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a missing element fails fast
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// outer is the HTML of the first element matching sel.
func outer(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// shot saves a 1280x800 screenshot of the page as name.png in the directory
// LLMCOST_SCREENSHOTS names (make screenshots sets docs/screenshots), and
// does nothing when it is unset: a test run leaves the tree as it found it.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LLMCOST_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// open loads path and waits for the page's main element.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if resp.Status >= 500 {
		t.Fatalf("open %s: status %d", url, resp.Status)
	}
}

// submit fills a form's fields (selector → value) and submits it.
func submit(t *testing.T, ctx context.Context, form string, fields map[string]string) {
	t.Helper()
	acts := []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.CSS(form))}
	for sel, v := range fields {
		acts = append(acts, chromedp.SetValue(chromedp.CSS(form+" "+sel), v))
	}
	// RunResponse waits for the navigation the submission starts, so the
	// next step reads the answer, not the page the form was on.
	run(t, ctx, "fill "+form, acts...)
	resp, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.CSS(form)))
	if err != nil {
		t.Fatalf("submit %s: %v", form, err)
	}
	if resp.Status >= 500 {
		t.Fatalf("submit %s: status %d", form, resp.Status)
	}
}

var keyPattern = regexp.MustCompile(`sk_[A-Za-z0-9_]+`)

// runEvents is one traced run of two agents with a tool call and a retry,
// a flat-plan call, and its outcome.
func runEvents(trace string) []any {
	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
	call := func(id, agent, model, step, span, parent string, in, out int, extra map[string]any) map[string]any {
		e := map[string]any{"event_id": id, "agent_name": agent, "model": model, "input_tokens": in, "output_tokens": out,
			"timestamp": now, "trace_id": trace, "workflow": "support-ticket", "step_name": step, "span_id": span,
			"latency_ms": 300 + in/10, "success": true}
		if parent != "" {
			e["parent_span_id"] = parent
		}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	return []any{
		call(trace+"-1", "planner", "gpt-4o", "plan", trace+"-s1", "", 2400, 300, map[string]any{"cached_tokens": 1200}),
		call(trace+"-2", "researcher", "gpt-4o-mini", "search", trace+"-s2", trace+"-s1", 1800, 200, map[string]any{"tool_name": "web_search"}),
		call(trace+"-3", "researcher", "gpt-4o-mini", "search", trace+"-s3", trace+"-s1", 1800, 200, map[string]any{"success": false}),
		call(trace+"-4", "writer", "claude-sonnet-4", "draft", trace+"-s4", trace+"-s1", 3000, 900,
			map[string]any{"metadata": map[string]any{"billing": "subscription"}}),
	}
}

// registerInBrowser registers a new user through the dashboard's form
// (the policies accepted) and answers the project's key, shown once on
// the page the form answers, the project's id and a session's token.
func registerInBrowser(t *testing.T, s *service, ctx context.Context, prefix, name string) (key, proj, session string) {
	t.Helper()
	email := fmt.Sprintf("%s%d@example.com", prefix, time.Now().UnixNano())
	open(t, ctx, s.URL+"/register")
	run(t, ctx, "accept the policies", chromedp.Click(chromedp.CSS(`input[name=accept_terms]`)),
		chromedp.Click(chromedp.CSS(`input[name=accept_privacy]`)))
	submit(t, ctx, "form", map[string]string{"input[name=email]": email, "input[name=password]": "correct horse battery", "input[name=name]": name})
	key = keyPattern.FindString(text(t, ctx, "#api-key"))
	if key == "" {
		t.Fatal("the registration page shows no API key")
	}
	proj = decode[wire.Project](t, s.call(t, "GET", "/v1/projects/me", key, nil).must(t, http.StatusOK)).ID
	session = decode[wire.Tokens](t, s.call(t, "POST", "/v1/auth/login", "", wire.LoginRequest{Email: email, Password: "correct horse battery"}).
		must(t, http.StatusOK)).AccessToken
	return key, proj, session
}

func TestDashboardInABrowser(t *testing.T) {
	rcv := newReceiver(t)
	s := start(t, rcv.env())
	ctx := newBrowser(t)

	// Register: the new project's key is shown once, on the page the
	// form answers.
	key, proj, session := registerInBrowser(t, s, ctx, "dash", "Dana")

	// A guardrail the batch below breaches: the researcher may only use a
	// calculator.
	s.call(t, "PUT", "/v1/projects/"+proj+"/guardrails", session,
		map[string]any{"agent_name": "researcher", "allowed_tools": []string{"calculator"}}).must(t, http.StatusCreated)

	// The empty overview says how to send the first event.
	open(t, ctx, s.URL+"/")
	if got := text(t, ctx, "#empty-state"); !strings.Contains(got, "curl") {
		t.Errorf("empty overview: %q", got)
	}

	// Send a batch with the key over HTTP, then the overview shows the
	// API's numbers.
	var events []any
	for i := range 3 {
		events = append(events, runEvents(fmt.Sprintf("run-%d", i))...)
	}
	outcomes := []any{map[string]any{"trace_id": "run-0", "success": true}, map[string]any{"trace_id": "run-1", "success": false}}
	r := s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": proj, "events": events, "outcomes": outcomes}).must(t, http.StatusOK)
	if num(t, r.Body["events_stored"]) != float64(len(events)) {
		t.Fatalf("batch: %s", r.Raw)
	}
	ov := decode[wire.Overview](t, s.call(t, "GET", "/v1/analytics/overview?range=7d", key, nil).must(t, http.StatusOK))
	cache := decode[wire.CacheReport](t, s.call(t, "GET", "/v1/analytics/cache?range=7d", key, nil).must(t, http.StatusOK))
	open(t, ctx, s.URL+"/?range=7d&project="+proj)
	for sel, want := range map[string]string{"#total-cost": web.USD(ov.TotalCost), "#subscription-cost": web.USD(ov.SubscriptionCost),
		"#total-calls": web.Count(ov.TotalCalls), "#cost-per-call": web.OptUSD(ov.AvgCostPerCall),
		"#success-rate": web.Percent(ov.SuccessRate), "#cache-savings": web.USD(cache.NetSavings)} {
		if got := text(t, ctx, sel); got != want {
			t.Errorf("overview %s shows %q, the API says %q", sel, got, want)
		}
	}

	// An agent, the workflows, a trace as a waterfall.
	open(t, ctx, s.URL+"/agents?project="+proj)
	if got := text(t, ctx, "#agents"); !strings.Contains(got, "researcher") || !strings.Contains(got, "planner") {
		t.Errorf("agents table: %q", got)
	}
	shot(t, ctx, "agents")
	// The planner owns the runs (a run's agent is its first call's).
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#agents a[href^="/agents/planner"]`))); err != nil {
		t.Fatalf("open the planner from the agents table: %v", err)
	}
	if got := text(t, ctx, "#agent-name"); got != "planner" {
		t.Errorf("agent page of %q", got)
	}
	detail := s.call(t, "GET", "/v1/analytics/agents/planner?range=7d", key, nil).must(t, http.StatusOK)
	agent := decode[wire.AgentDetail](t, detail).Summary
	if got, want := text(t, ctx, "#agent-cost"), web.USD(agent.TotalCost); got != want {
		t.Errorf("agent page spend %q, the API says %q", got, want)
	}
	if got := text(t, ctx, "#agent-traces"); !strings.Contains(got, "run-0") {
		t.Errorf("agent's most expensive runs: %q (API: %s)", got, detail.Raw)
	}
	if got := text(t, ctx, "#steps"); !strings.Contains(got, "plan") {
		t.Errorf("agent's steps: %q (API: %s)", got, detail.Raw)
	}
	shot(t, ctx, "agent")
	open(t, ctx, s.URL+"/optimizations?project="+proj)
	shot(t, ctx, "optimizations")
	open(t, ctx, s.URL+"/workflows?project="+proj)
	if got := text(t, ctx, "#outcomes"); !strings.Contains(got, "support-ticket") {
		t.Errorf("outcomes: %q", got)
	}
	shot(t, ctx, "workflows")
	open(t, ctx, s.URL+"/traces?project="+proj)
	shot(t, ctx, "traces")
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#traces tbody tr:first-child a`))); err != nil {
		t.Fatalf("open a trace: %v", err)
	}
	run(t, ctx, "waterfall", chromedp.WaitVisible(chromedp.CSS("svg.waterfall")))
	if got := text(t, ctx, "#spans"); !strings.Contains(got, "web_search") || !strings.Contains(got, "failed") {
		t.Errorf("trace spans: %q", got)
	}
	shot(t, ctx, "trace")
	open(t, ctx, s.URL+"/guardrails?project="+proj)
	if got := text(t, ctx, ".agent-compliance"); !strings.Contains(got, "breach") || !strings.Contains(got, "undeclared_tool") ||
		!strings.Contains(got, "web_search") {
		t.Errorf("guardrail compliance: %q", got)
	}
	shot(t, ctx, "guardrails")
	open(t, ctx, s.URL+"/models?project="+proj)
	if got := text(t, ctx, "#models"); !strings.Contains(got, "gpt-4o-mini") {
		t.Errorf("models: %q", got)
	}
	shot(t, ctx, "models")

	// Rotate the key: the new one is shown once and works, the old fails.
	open(t, ctx, s.URL+"/settings?project="+proj)
	submit(t, ctx, "#rotate-form", nil)
	newKey := keyPattern.FindString(text(t, ctx, "#api-key"))
	if newKey == "" || newKey == key {
		t.Fatalf("rotation showed %q", newKey)
	}
	s.call(t, "GET", "/v1/projects/me", key, nil).must(t, http.StatusUnauthorized)
	s.call(t, "GET", "/v1/projects/me", newKey, nil).must(t, http.StatusOK)
	open(t, ctx, s.URL+"/settings?project="+proj)
	html := outer(t, ctx, "html")
	if strings.Contains(html, newKey) {
		t.Error("the settings page shows the API key after the rotation page")
	}

	// Invite a member; configure the webhook and test it against the
	// local HTTPS receiver; set a budget and see the gauge.
	viewerEmail := fmt.Sprintf("viewer%d@example.com", time.Now().UnixNano())
	submit(t, ctx, "#invite-form", map[string]string{"input[name=email]": viewerEmail, "select[name=role]": "viewer"})
	if got := text(t, ctx, "#members"); !strings.Contains(got, viewerEmail) || !strings.Contains(got, "invited") {
		t.Errorf("members after the invitation: %q", got)
	}
	submit(t, ctx, "#webhook-form", map[string]string{"input[name=url]": rcv.srv.URL + "/hook", "input[name=secret]": hookSecret})
	submit(t, ctx, "#webhook-test-form", nil)
	if got := text(t, ctx, "#webhook-test-result"); !strings.Contains(got, "Delivered") {
		t.Errorf("webhook test: %q", got)
	}
	if n := rcv.byType(t)["webhook.test"]; n != 1 {
		t.Errorf("%d webhook.test deliveries reached the receiver, want 1", n)
	}
	submit(t, ctx, "#budget-form", map[string]string{"input[name=budget]": "0.03", "input[name=thresholds]": "50, 80, 100"})
	run(t, ctx, "budget gauge", chromedp.WaitVisible(chromedp.CSS("#budget svg.gauge")))
	shot(t, ctx, "settings")
	open(t, ctx, s.URL+"/?project="+proj)
	run(t, ctx, "overview gauge", chromedp.WaitVisible(chromedp.CSS("#budget svg.gauge")))
	state := decode[wire.BudgetState](t, s.call(t, "GET", "/v1/projects/"+proj+"/budget-state", newKey, nil).must(t, http.StatusOK))
	if got, want := text(t, ctx, "#budget-used"), web.USD(state.SpendMTD); got != want {
		t.Errorf("overview budget shows %q, the API says %q", got, want)
	}
	var crossed []string
	for _, c := range state.ThresholdsCrossed {
		crossed = append(crossed, fmt.Sprint(c)+"%")
	}
	if got := text(t, ctx, "#budget"); len(crossed) == 0 || !strings.Contains(got, "thresholds crossed: "+strings.Join(crossed, ", ")) {
		t.Errorf("overview budget %q, the API's thresholds crossed %v", got, crossed)
	}
	shot(t, ctx, "overview")

	// A form post without the CSRF token is refused, even with the
	// session cookie.
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	var jar []string
	for _, c := range got.Cookies {
		if !c.HTTPOnly {
			t.Errorf("cookie %s is readable by scripts", c.Name)
		}
		if strings.Contains(c.Value, newKey) {
			t.Errorf("cookie %s carries the API key", c.Name)
		}
		jar = append(jar, c.Name+"="+c.Value)
	}
	forged := s.call(t, "POST", "/settings/key/rotate", "", "project="+proj, "Content-Type", "application/x-www-form-urlencoded",
		"Cookie", strings.Join(jar, "; "))
	forged.must(t, http.StatusForbidden)
	s.call(t, "GET", "/v1/projects/me", newKey, nil).must(t, http.StatusOK)

	// The invited viewer sees no settings actions; an outsider gets 404.
	other := newBrowser(t)
	open(t, other, s.URL+"/register")
	run(t, other, "accept the policies", chromedp.Click(chromedp.CSS(`input[name=accept_terms]`)),
		chromedp.Click(chromedp.CSS(`input[name=accept_privacy]`)))
	submit(t, other, "form", map[string]string{"input[name=email]": viewerEmail, "input[name=password]": "correct horse battery"})
	open(t, other, s.URL+"/settings?project="+proj)
	if got := text(t, other, "main"); !strings.Contains(got, "404") {
		t.Errorf("before accepting, the invitee opens the project's settings: %q", got)
	}
	login := s.call(t, "POST", "/v1/auth/login", "", map[string]any{"email": viewerEmail, "password": "correct horse battery"}).must(t, http.StatusOK)
	s.call(t, "POST", "/v1/projects/"+proj+"/invitations/accept", login.Body["access_token"].(string), nil).must(t, http.StatusOK)
	open(t, other, s.URL+"/settings?project="+proj)
	html = outer(t, other, "main")
	for _, action := range []string{"invite-form", "rotate-form", "webhook-form", "webhook-test-form", "budget-form"} {
		if strings.Contains(html, action) {
			t.Errorf("a viewer sees %s", action)
		}
	}
	if !strings.Contains(html, "read-only-note") {
		t.Errorf("the viewer's settings page: %s", html)
	}
}
