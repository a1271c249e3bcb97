// Package dashboard is the web dashboard: server-rendered pages and forms
// on the API's own origin, a peer of the REST API rather than a part of
// it. It has no query and no store of its own: every number a page shows
// is an answer of an API route, run in process as the browser's session
// through that route's own guard and handler (API), and every form is the
// matching API write. So a page can show only what the API would answer
// the same person, and validation and authorization are the API's.
//
// The routes it uses are named once, with their request and answer types
// from package wire, in client.go; pages read them through that client
// and hand typed records to the templates of package web.
package dashboard

import (
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/backlog"
)

// API runs one route of the REST API's route table in process, as the
// principal as (nil: a browser that is not signed in): the route's guard,
// then its handler, decoding the JSON answer into out (a *[]byte takes
// the answer as written: a report's CSV). The request keeps
// from's address and user agent. An error is the route's own domain
// error, as an HTTP client would see it.
type API interface {
	Call(from *http.Request, as *access.Principal, c Call, out any) error
}

// Call is one request to a route of the API.
type Call struct {
	Method string
	// Route is the route table's template of the path.
	Route string
	// Vars fill the template's {name} variables.
	Vars  map[string]string
	Query url.Values
	// Body is encoded as the JSON request body when not nil.
	Body any
}

// Sessions are the browser's credentials: cookies that carry the API's
// own session tokens, and the CSRF token every form posts back. The API
// keeps them, since it alone resolves and renews a session.
type Sessions interface {
	// Principal resolves the browser's session (renewing an expired
	// access token) to its principal and the user's e-mail.
	Principal(w http.ResponseWriter, r *http.Request) (p *access.Principal, email string, ok bool)
	// Start keeps a new session's tokens in the browser; remember keeps
	// them past the browser's session.
	Start(w http.ResponseWriter, r *http.Request, t wire.Tokens, remember bool)
	// End removes the session's cookies.
	End(w http.ResponseWriter, r *http.Request)
	// CSRFToken is the browser's CSRF token, minted on first use.
	CSRFToken(w http.ResponseWriter, r *http.Request) string
	// NewCSRF replaces the CSRF token, as signing in does.
	NewCSRF(w http.ResponseWriter, r *http.Request) string
	// Secure says whether the browser reached the origin over TLS.
	Secure(r *http.Request) bool
}

// Deps is what the dashboard needs from the server that hosts it.
type Deps struct {
	API      API
	Sessions Sessions
	// Backlog holds the mergers' lag the overview shows; nil shows none.
	Backlog *backlog.Gate
	Now     func() time.Time
	Logger  *zap.Logger
}

// Dashboard serves the pages and forms.
type Dashboard struct{ Deps }

// New makes the dashboard.
func New(d Deps) *Dashboard {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	return &Dashboard{Deps: d}
}

// Kind says what admits a request to a route, for the host's guards.
type Kind int

const (
	// Page is a GET any browser may ask for: without a session it is
	// sent to sign in.
	Page Kind = iota
	// Form is a POST that must come from this origin with the CSRF token
	// of its cookie.
	Form
	// Static is an embedded file anyone may read.
	Static
)

// Route is one page, form or file of the dashboard.
type Route struct {
	Method, Path string
	Kind         Kind
	Handler      func(http.ResponseWriter, *http.Request) error
}

// Routes are the dashboard's routes, for the host's one route table.
func (d *Dashboard) Routes() []Route {
	page := func(path, nav, title string, h pageHandler) Route {
		return Route{http.MethodGet, path, Page, d.page(nav, title, h)}
	}
	form := func(path string, h func(http.ResponseWriter, *http.Request) error) Route {
		return Route{http.MethodPost, path, Form, h}
	}
	return []Route{
		page("/", "overview", "Overview", d.overviewPage),
		{http.MethodGet, "/login", Page, d.loginPage},
		form("/login", d.loginForm),
		{http.MethodGet, "/register", Page, d.registerPage},
		form("/register", d.registerForm),
		form("/logout", d.logoutForm),
		page("/agents", "agents", "Agents", d.agentsPage),
		page("/agents/{agent_name:.+}", "agents", "Agent", d.agentPage),
		page("/optimizations", "optimizations", "Optimisations", d.optimizationsPage),
		page("/workflows", "workflows", "Workflows", d.workflowsPage),
		page("/traces", "traces", "Traces", d.tracesPage),
		page("/traces/{trace_id}", "traces", "Trace", d.tracePage),
		page("/guardrails", "guardrails", "Guardrails", d.guardrailsPage),
		page("/models", "models", "Models and cache", d.modelsPage),
		page("/chargeback", "chargeback", "Chargeback", d.chargebackPage),
		page("/reconciliation", "reconciliation", "Reconciliation", d.reconcilePage),
		page("/settings", "settings", "Settings", d.settingsPage),
		form("/settings/key/rotate", d.page("settings", "New API key", d.rotateForm)),
		form("/settings/members", d.settingsForm(d.inviteForm)),
		form("/settings/webhook", d.settingsForm(d.webhookForm)),
		form("/settings/webhook/test", d.settingsForm(d.webhookTestForm)),
		form("/settings/budget", d.settingsForm(d.budgetForm)),
		form("/settings/retention", d.settingsForm(d.retentionForm)),
		form("/settings/connections", d.settingsForm(d.connectForm)),
		form("/settings/connections/sync", d.settingsForm(d.connectionSyncForm)),
		form("/settings/connections/delete", d.settingsForm(d.disconnectForm)),
		{http.MethodGet, "/export/{report}.csv", Page, d.downloadCSV},
		{http.MethodGet, "/static/{file}", Static, serveStatic},
	}
}

// serveStatic serves the embedded CSS, script and icon.
func serveStatic(w http.ResponseWriter, r *http.Request) error {
	staticFiles.ServeHTTP(w, r)
	return nil
}

var staticFiles = web.Static()
