package apiserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/apiserver/web"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
)

// The dashboard (docs/dashboard.md): server-rendered pages on the same
// origin. It adds no private API: every number a page shows is read by
// calling a REST route of the route table in process (callRoute), as the
// browser's session, through that route's own guard and handler, and
// decoded from the same JSON a client gets. Forms do the same with the
// write routes, so validation and authorization are the API's.

// dashRanges are the ranges the pickers offer: the overview's.
var dashRanges = []string{"24h", "7d", "30d", "90d"}

const defaultDashRange = "7d"

// dash is one page request of a signed-in browser.
type dash struct {
	s  *Server
	w  http.ResponseWriter
	r  *http.Request
	p  *access.Principal
	pg web.Page
	// status is the page's status when not 200 (a refused form: 422).
	status int
}

// pageHandler renders the page named by the template it returns with the
// data it returns.
type pageHandler func(d *dash) (tmpl string, data any, err error)

// page adapts a page handler: a browser without a live session is sent to
// sign in (303, back here afterwards); an error is an HTML error page with
// the API's status.
func (s *Server) page(nav, title string, h pageHandler) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, ok := s.openDash(w, r)
		if !ok {
			return nil
		}
		d.pg.Nav, d.pg.Title = nav, title
		tmpl, data, err := h(d)
		if err != nil {
			return d.fail(err)
		}
		d.pg.Data = data
		return web.Render(w, cmp.Or(d.status, http.StatusOK), tmpl, d.pg)
	}
}

// openDash resolves the browser's session, its projects and the picked
// project and range. Without a session it redirects to /login.
func (s *Server) openDash(w http.ResponseWriter, r *http.Request) (*dash, bool) {
	p, user, ok := s.browserSession(w, r)
	if !ok {
		next := r.URL.RequestURI()
		if r.Method != http.MethodGet {
			next = "/"
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
		return nil, false
	}
	d := &dash{s: s, w: w, r: r, p: p}
	d.pg.User, d.pg.CSRF = user, s.csrfToken(w, r)
	d.pg.Ranges, d.pg.Range = dashRanges, defaultDashRange
	if rng := r.FormValue("range"); rng != "" {
		if _, err := analytics.ParseRange(rng, analytics.OverviewRanges); err == nil {
			d.pg.Range = rng
		}
	}
	return d, true
}

// project loads the picker and resolves the picked project (the form or
// query's project, else the first): one the user is not an accepted
// member of is 404, exactly as the API answers it.
func (d *dash) project() error {
	var list projectListJSON
	if err := d.api(http.MethodGet, "/v1/projects", nil, nil, nil, &list); err != nil {
		return err
	}
	want := access.CanonicalUUID(d.r.FormValue("project"))
	for _, p := range list.Projects {
		if want == "" {
			want = p.ID
		}
		sel := p.ID == want
		d.pg.Projects = append(d.pg.Projects, web.Project{ID: p.ID, Name: p.Name, Role: p.Role, Selected: sel})
		if sel {
			d.pg.ProjectID, d.pg.Project, d.pg.Role = p.ID, p.Name, p.Role
		}
	}
	if d.pg.ProjectID == "" {
		if len(list.Projects) == 0 {
			return apierr.New(apierr.NotFound, "you are not a member of any project").
				WithHint("accept an invitation, or create a project with POST /v1/projects")
		}
		return apierr.New(apierr.NotFound, "project not found")
	}
	d.pg.CanEdit = access.RoleHas(d.pg.Role, access.EditProject)
	d.pg.CanManage = access.RoleHas(d.pg.Role, access.ManageMembers)
	return nil
}

// query is the picked project and range as the analytics routes read
// them, with extra pairs.
func (d *dash) query(kv ...string) url.Values {
	q := url.Values{"project_id": {d.pg.ProjectID}, "range": {d.pg.Range}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// vars are the path variables of a project route.
func (d *dash) vars(kv ...string) map[string]string {
	v := map[string]string{"project_id": d.pg.ProjectID}
	for i := 0; i+1 < len(kv); i += 2 {
		v[kv[i]] = kv[i+1]
	}
	return v
}

// api calls a route as this browser's session.
func (d *dash) api(method, tpl string, vars map[string]string, query url.Values, body, out any) error {
	return d.s.callRoute(d.r, d.p, method, tpl, vars, query, body, out)
}

// read is one GET of a page: a route, its path variables and query, and
// where its JSON goes.
type pageRead struct {
	tpl   string
	vars  map[string]string
	query url.Values
	out   any
}

// reads runs a page's GETs at once and returns the first error: they are
// independent, so a page waits for its slowest read, not for their sum.
func (d *dash) reads(rs ...pageRead) error {
	errs := make([]error, len(rs))
	var wg sync.WaitGroup
	for i, rd := range rs {
		wg.Go(func() { errs[i] = d.api(http.MethodGet, rd.tpl, rd.vars, rd.query, nil, rd.out) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fail renders err as an error page with the status the API gives it; a
// server fault is logged and shown without its cause.
func (d *dash) fail(err error) error {
	return d.s.errorPage(d.w, d.r, d.pg, err)
}

type errorData struct {
	Status           int
	Heading, Message string
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, pg web.Page, err error) error {
	e := apierr.As(err)
	status := respond.Status(e.Code)
	msg := e.Message
	if status >= 500 {
		s.Logger.Warn("dashboard page failed", zap.String("path", r.URL.Path), zap.Error(err))
		msg = "Something went wrong on our side; try again in a moment."
	} else if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	pg.Title, pg.Data = http.StatusText(status), errorData{Status: status, Heading: http.StatusText(status), Message: msg}
	return web.Render(w, status, "error", pg)
}

// callRoute runs the route "method tpl" of the route table in process for
// principal p: its guard, then its handler, and decodes the JSON answer
// into out. The request keeps the browser's address and user agent (the
// register route records them with consent). An error is the route's own
// domain error, as an HTTP client would see it.
func (s *Server) callRoute(from *http.Request, p *access.Principal, method, tpl string, vars map[string]string,
	query url.Values, body, out any) error {
	rt, ok := s.route(method, tpl)
	if !ok {
		return fmt.Errorf("dashboard: no route %s %s in the route table", method, tpl)
	}
	rd := io.Reader(http.NoBody)
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	path := fillPath(tpl, vars)
	req, err := http.NewRequestWithContext(access.NewContext(from.Context(), p), method, path, rd)
	if err != nil {
		return err
	}
	req.URL.RawQuery = query.Encode()
	req.RemoteAddr = from.RemoteAddr
	req.Header.Set("User-Agent", from.UserAgent())
	req.Header.Set("Content-Type", "application/json")
	req = mux.SetURLVars(req, vars)
	c, err := rt.Guard.check(s, req)
	if err != nil {
		return err
	}
	rec := &recorder{header: http.Header{}}
	if err := rt.Handler(rec, req.WithContext(context.WithValue(req.Context(), callerKey{}, c))); err != nil {
		return err
	}
	if out == nil || rec.body.Len() == 0 {
		return nil
	}
	return json.Unmarshal(rec.body.Bytes(), out)
}

// route finds "method tpl" in the route table.
func (s *Server) route(method, tpl string) (route, bool) {
	for _, rt := range s.table {
		if rt.Method == method && rt.Path == tpl {
			return rt, true
		}
	}
	return route{}, false
}

// recorder keeps a route's answer for callRoute.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// statusFor is the HTTP status the API gives err.
func statusFor(err error) int { return respond.Status(apierr.As(err).Code) }

// messageOf is what a form shows for err: the API's message and hint for
// what the person can fix, a generic line for server faults.
func messageOf(err error) string {
	e := apierr.As(err)
	if respond.Status(e.Code) >= 500 {
		return "Something went wrong on our side; try again in a moment."
	}
	if e.Hint != "" {
		return e.Message + " (" + e.Hint + ")"
	}
	return e.Message
}

// serveStatic serves the dashboard's embedded CSS, script and icon.
func serveStatic(w http.ResponseWriter, r *http.Request) error {
	staticFiles.ServeHTTP(w, r)
	return nil
}

var staticFiles = web.Static()

// fillPath puts vars into a route template's {name} and {name:pattern}
// variables, escaped, for the in-process request's URL (the handlers read
// the variables themselves from mux.Vars).
func fillPath(tpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl, '}')
		if i < 0 || j < i {
			b.WriteString(tpl)
			return b.String()
		}
		name, _, _ := strings.Cut(tpl[i+1:j], ":")
		b.WriteString(tpl[:i] + url.PathEscape(vars[name]))
		tpl = tpl[j+1:]
	}
}
