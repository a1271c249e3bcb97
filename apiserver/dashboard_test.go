package apiserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/dashboard/web"
)

// browser is a cookie-keeping client of the dashboard, in process.
type browser struct {
	e       *env
	cookies map[string]string
}

func (e *env) browser() *browser { return &browser{e: e, cookies: map[string]string{}} }

type page struct {
	Status   int
	Location string
	Body     string
}

func (b *browser) do(method, path string, form url.Values) page {
	b.e.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	rec := httptest.NewRecorder()
	b.e.h.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
			b.e.t.Errorf("cookie %s: HttpOnly %v, SameSite %v, Path %q", c.Name, c.HttpOnly, c.SameSite, c.Path)
		}
		if strings.HasPrefix(c.Name, "__Host-") != c.Secure {
			b.e.t.Errorf("cookie %s: Secure %v", c.Name, c.Secure)
		}
	}
	return page{Status: rec.Code, Location: rec.Header().Get("Location"), Body: rec.Body.String()}
}

// cookie is the value of a dashboard cookie, with or without the __Host-
// prefix (a server whose public URL is https sets it).
func (b *browser) cookie(base string) string {
	if v, ok := b.cookies["__Host-"+base]; ok {
		return v
	}
	return b.cookies[base]
}

func (b *browser) get(path string) page { b.e.t.Helper(); return b.do("GET", path, nil) }

// post sends a form with the browser's CSRF token.
func (b *browser) post(path string, form url.Values) page {
	b.e.t.Helper()
	form.Set("csrf_token", b.cookie(csrfCookie))
	return b.do("POST", path, form)
}

func (b *browser) signIn(email string) {
	b.e.t.Helper()
	b.get("/login")
	p := b.post("/login", url.Values{"email": {email}, "password": {testPassword}})
	if p.Status != http.StatusSeeOther || p.Location != "/" {
		b.e.t.Fatalf("sign in: %d %s %s", p.Status, p.Location, p.Body)
	}
}

func (b *browser) must(p page, status int, has ...string) page {
	b.e.t.Helper()
	if p.Status != status {
		b.e.t.Fatalf("status %d, want %d: %.2000s", p.Status, status, p.Body)
	}
	for _, h := range has {
		if !strings.Contains(p.Body, h) {
			b.e.t.Errorf("page lacks %q: %.3000s", h, p.Body)
		}
	}
	return p
}

var settingsActions = []string{`id="invite-form"`, `id="rotate-form"`, `id="webhook-form"`, `id="budget-form"`, `id="connection-form"`, `id="retention-form"`}

func TestDashboardAccess(t *testing.T) {
	m := &matrixEnv{env: newEnv(t), users: map[principal]user{}}
	for _, p := range []principal{owner, viewer, outsider} {
		m.users[p] = m.register(string(p))
	}
	o := m.users[owner]
	m.must(m.do("POST", "/v1/projects/"+o.ProjectID+"/members", o.Access, map[string]string{"email": m.users[viewer].Email, "role": "viewer"}), 201)
	m.verify(m.users[viewer])
	m.must(m.do("POST", "/v1/projects/"+o.ProjectID+"/invitations/accept", m.users[viewer].Access, nil), 200)
	m.seedCalls(o.ProjectID, m.clock.Now())
	q := "?project=" + o.ProjectID + "&range=24h"
	pages := []string{"/", "/agents", "/agents/planner", "/workflows", "/traces", "/guardrails", "/models", "/chargeback", "/optimizations", "/settings"}

	anon := m.browser()
	for _, p := range pages {
		got := anon.get(p + q)
		if got.Status != http.StatusSeeOther || !strings.HasPrefix(got.Location, "/login?next=") {
			t.Errorf("anonymous %s: %d %s", p, got.Status, got.Location)
		}
	}

	owners := m.browser()
	owners.signIn(o.Email)
	api := m.must(m.do("GET", "/v1/analytics/overview?range=24h", o.Key, nil), 200)
	owners.must(owners.get("/"+q), 200, `id="total-cost">`+web.Dollars(api.Body["total_cost"].(float64))+`<`, "planner", "coder")
	for _, p := range pages {
		owners.must(owners.get(p+q), 200)
	}
	owners.must(owners.get("/agents"+q), 200, `href="/agents/planner?`, "new")
	owners.must(owners.get("/agents/planner"+q), 200, `id="agent-name">planner<`)
	owners.must(owners.get("/agents/nobody"+q), 404)
	owners.must(owners.get("/settings"+q), 200, settingsActions...)

	viewers := m.browser()
	viewers.signIn(m.users[viewer].Email)
	set := viewers.must(viewers.get("/settings"+q), 200, `id="read-only-note"`)
	for _, a := range settingsActions {
		if strings.Contains(set.Body, a) {
			t.Errorf("a viewer sees the settings action %s", a)
		}
	}
	viewers.must(viewers.post("/settings/key/rotate", url.Values{"project": {o.ProjectID}}), 403)
	viewers.must(viewers.post("/settings/budget", url.Values{"project": {o.ProjectID}, "budget": {"10"}}), 403)

	outsiders := m.browser()
	outsiders.signIn(m.users[outsider].Email)
	for _, p := range pages {
		outsiders.must(outsiders.get(p+q), 404)
	}
	outsiders.must(outsiders.post("/settings/key/rotate", url.Values{"project": {o.ProjectID}}), 404)

	// A form without its token, or with another browser's, is refused.
	noToken := owners.do("POST", "/settings/budget", url.Values{"project": {o.ProjectID}, "budget": {"10"}})
	owners.must(noToken, 403)
	forged := owners.do("POST", "/settings/budget", url.Values{"project": {o.ProjectID}, "budget": {"10"}, "csrf_token": {viewers.cookie(csrfCookie)}})
	owners.must(forged, 403)
	if st := m.must(m.do("GET", "/v1/projects/"+o.ProjectID+"/budget-state", o.Key, nil), 200); st.Body["budget"] != nil {
		t.Errorf("a refused form changed the budget: %s", st.Raw)
	}
}

func TestDashboardForms(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.get("/register")
	reg := b.post("/register", url.Values{"email": {"dash@example.com"}, "password": {testPassword}, "name": {"Dash"},
		"accept_terms": {"true"}, "accept_privacy": {"true"}})
	b.must(reg, 201, `id="api-key"`)
	key := regexp.MustCompile(`sk_[A-Za-z0-9_]+`).FindString(reg.Body)
	proj := e.must(e.do("GET", "/v1/projects/me", key, nil), 200).str("id")
	if key == "" || proj == "" {
		t.Fatalf("the registration page shows no working key: %s", reg.Body)
	}
	for name, v := range b.cookies {
		if strings.Contains(v, key) {
			t.Errorf("cookie %s carries the API key", name)
		}
	}
	b.must(b.get("/?project="+proj), 200, `id="empty-state"`, "curl", `id="cost-per-call">—<`)
	for _, p := range []string{"/agents", "/workflows", "/traces", "/guardrails", "/models", "/optimizations"} {
		b.must(b.get(p+"?project="+proj), 200)
	}
	if strings.Contains(b.must(b.get("/settings?project="+proj), 200).Body, key) {
		t.Error("the settings page shows the API key again")
	}
	rot := b.must(b.post("/settings/key/rotate", url.Values{"project": {proj}}), 200)
	newKey := regexp.MustCompile(`sk_[A-Za-z0-9_]+`).FindString(rot.Body)
	if newKey == "" || newKey == key {
		t.Fatalf("rotation shows no new key: %s", rot.Body)
	}
	e.must(e.do("GET", "/v1/projects/me", key, nil), 401)
	e.must(e.do("GET", "/v1/projects/me", newKey, nil), 200)

	b.must(b.post("/settings/members", url.Values{"project": {proj}, "email": {"friend@example.com"}, "role": {"viewer"}}), 200, "friend@example.com", "invited")
	b.must(b.post("/settings/members", url.Values{"project": {proj}, "email": {"not an address"}, "role": {"viewer"}}), 422, "email: must be a valid e-mail address")
	b.must(b.post("/settings/budget", url.Values{"project": {proj}, "budget": {"25"}, "thresholds": {"50, 90"}, "mode": {"warn"}}), 200,
		"Budget saved.", `class="chart gauge"`, "90%", `class="projection"`)
	b.must(b.get("/?project="+proj), 200, `id="budget-forecast"`, "Projected by the month", `class="projection"`)
	b.must(b.post("/settings/budget", url.Values{"project": {proj}, "budget": {"-1"}}), 422, "budget: must be a positive number")
	b.must(b.post("/settings/retention", url.Values{"project": {proj}, "raw_days": {"90"}, "rollup_days": {""}}), 200,
		"Retention saved.", "Raw calls are kept 90 days (this project)", `id="raw-expired-before"`)
	b.must(b.post("/settings/retention", url.Values{"project": {proj}, "raw_days": {"0"}}), 422, "raw_days: must be from 1")
	b.must(b.post("/settings/webhook", url.Values{"project": {proj}, "url": {"http://example.com/hook"}, "secret": {"0123456789abcdef"}}), 422, "url")

	// Signing out ends the API session the cookies carried.
	access := b.cookie(sessionCookie)
	if _, ok := b.cookies["__Host-"+sessionCookie]; !ok {
		t.Error("with an https public URL the session cookie is not __Host- prefixed")
	}
	b.must(b.post("/logout", url.Values{}), http.StatusSeeOther)
	e.must(e.do("GET", "/v1/auth/me", access, nil), 401)
	if got := b.get("/settings?project=" + proj); got.Status != http.StatusSeeOther {
		t.Errorf("after sign-out the settings page answers %d", got.Status)
	}
}

func TestFillPath(t *testing.T) {
	got := fillPath("/v1/analytics/agents/{agent_name:.+}", map[string]string{"agent_name": "a b/c"})
	if want := "/v1/analytics/agents/a%20b%2Fc"; got != want {
		t.Errorf("fillPath = %q, want %q", got, want)
	}
	if got := fillPath("/v1/projects/{project_id}/members/{user_id}", map[string]string{"project_id": "p", "user_id": "u"}); got != "/v1/projects/p/members/u" {
		t.Errorf("fillPath = %q", got)
	}
}
