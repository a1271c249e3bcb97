package dashboard

import (
	"cmp"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
)

// ranges are the ranges the pickers offer: the overview's.
var ranges = []string{"24h", "7d", "30d", "90d"}

const defaultRange = "7d"

// dash is one page request of a signed-in browser.
type dash struct {
	*Dashboard
	w   http.ResponseWriter
	r   *http.Request
	api client
	pg  web.Page
	// status is the page's status when not 200 (a refused form: 422).
	status int
}

// pageHandler renders the page named by the template it returns with the
// data it returns.
type pageHandler func(d *dash) (tmpl string, data any, err error)

// page adapts a page handler: a browser without a live session is sent to
// sign in (303, back here afterwards); an error is an HTML error page with
// the API's status.
func (d *Dashboard) page(nav, title string, h pageHandler) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		pd, ok := d.open(w, r)
		if !ok {
			return nil
		}
		pd.pg.Nav, pd.pg.Title = nav, title
		tmpl, data, err := h(pd)
		if err != nil {
			return d.errorPage(w, r, pd.pg, err)
		}
		pd.pg.Data = data
		return web.Render(w, cmp.Or(pd.status, http.StatusOK), tmpl, pd.pg)
	}
}

// open resolves the browser's session and the picked range. Without a
// session it redirects to /login.
func (d *Dashboard) open(w http.ResponseWriter, r *http.Request) (*dash, bool) {
	p, user, ok := d.Sessions.Principal(w, r)
	if !ok {
		next := r.URL.RequestURI()
		if r.Method != http.MethodGet {
			next = "/"
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
		return nil, false
	}
	pd := &dash{Dashboard: d, w: w, r: r, api: client{api: d.API, from: r, as: p}}
	pd.pg.User, pd.pg.CSRF = user, d.Sessions.CSRFToken(w, r)
	pd.pg.Ranges, pd.pg.Range, pd.pg.Tag = ranges, defaultRange, strings.TrimSpace(r.FormValue("tag"))
	if rng := r.FormValue("range"); rng != "" {
		if _, err := analytics.ParseRange(rng, analytics.OverviewRanges); err == nil {
			pd.pg.Range = rng
		}
	}
	return pd, true
}

// project loads the picker and resolves the picked project (the form or
// query's project, else the first): one the user is not an accepted
// member of is 404, exactly as the API answers it.
func (d *dash) project() error {
	list, err := d.api.projects()
	if err != nil {
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

// report is the picked project and range as the report routes read them,
// with at most limit rows (0: the route's default).
func (d *dash) report(limit int) wire.ReportQuery {
	return wire.ReportQuery{ProjectID: d.pg.ProjectID, Range: d.pg.Range, Limit: limit}
}

// tagged is report with the picked tag filter, for the reports that take
// it (the spend reports, the run reports and the agents summary); a page
// reading them loads the picker (tagPicker), which offers the filter.
func (d *dash) tagged(limit int) wire.ReportQuery {
	q := d.report(limit)
	q.Tag = d.pg.Tag
	return q
}

// tagPicker loads the project's declared keys into the picker of a page
// whose reports take the tag filter.
func (d *dash) tagPicker() error {
	tags, err := d.api.tags(d.pg.ProjectID)
	if err != nil {
		return err
	}
	for _, k := range tags.Keys {
		d.pg.TagKeys = append(d.pg.TagKeys, k.Key)
	}
	d.pg.TagFilter = true
	return nil
}

// all runs a page's reads at once and returns the first error: they are
// independent, so a page waits for its slowest read, not for their sum.
func all(reads ...func() error) error {
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for i, read := range reads {
		wg.Go(func() { errs[i] = read() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// into is a read whose answer goes to *dst.
func into[T any](dst *T, read func() (T, error)) func() error {
	return func() error {
		v, err := read()
		*dst = v
		return err
	}
}

// errorData is the error page's record.
type errorData struct {
	Status           int
	Heading, Message string
}

// errorPage renders err as an error page with the status the API gives
// it; a server fault is logged and shown without its cause.
func (d *Dashboard) errorPage(w http.ResponseWriter, r *http.Request, pg web.Page, err error) error {
	e := apierr.As(err)
	status := respond.Status(e.Code)
	msg := e.Message
	if status >= 500 {
		d.Logger.Warn("dashboard page failed", zap.String("path", r.URL.Path), zap.Error(err))
		msg = "Something went wrong on our side; try again in a moment."
	} else if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	pg.Title, pg.Data = http.StatusText(status), errorData{Status: status, Heading: http.StatusText(status), Message: msg}
	return web.Render(w, status, "error", pg)
}

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
