package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
)

// The sign-in pages post to the API's own account routes in process.

type loginData struct{ Email, Next string }

type registerData struct {
	Name, Email                string
	TermsURL, TermsVersion     string
	PrivacyURL, PrivacyVersion string
}

// keyData is the page that shows a new API key, once.
type keyData struct {
	Heading, Note string
	curlData
}

// curlData fills the first-event example.
type curlData struct {
	Origin, Key, ProjectID, Now string
}

// anonymous is the API as a browser that is not signed in reaches it.
func (d *Dashboard) anonymous(r *http.Request) client { return client{api: d.API, from: r} }

func (d *Dashboard) authPage(w http.ResponseWriter, r *http.Request, status int, tmpl, title, msg string, data any) error {
	pg := web.Page{Title: title, Error: msg, CSRF: d.Sessions.CSRFToken(w, r), Data: data}
	return web.Render(w, status, tmpl, pg)
}

// safeNext keeps a post-sign-in redirect on this origin: only a local
// absolute path, never //host or a scheme.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

// loginPage is GET /login.
func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) error {
	return d.authPage(w, r, http.StatusOK, "login", "Sign in", "", loginData{Next: safeNext(r.URL.Query().Get("next"))})
}

// loginForm is POST /login: the API's login, then the session in cookies.
func (d *Dashboard) loginForm(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	remember := f.Get("remember_me") == "true"
	tokens, err := d.anonymous(r).login(wire.LoginRequest{Email: f.Get("email"), Password: f.Get("password"), RememberMe: remember})
	if err != nil {
		return d.authPage(w, r, statusFor(err), "login", "Sign in", messageOf(err),
			loginData{Email: f.Get("email"), Next: safeNext(f.Get("next"))})
	}
	d.Sessions.Start(w, r, tokens, remember)
	d.Sessions.NewCSRF(w, r)
	http.Redirect(w, r, safeNext(f.Get("next")), http.StatusSeeOther)
	return nil
}

// registerData is the registration form with the documents in force.
func (d *Dashboard) registerData(r *http.Request, name, email string) (registerData, wire.Policies, error) {
	pol, err := d.anonymous(r).policies()
	return registerData{Name: name, Email: email, TermsURL: pol.Terms.URL, TermsVersion: pol.Terms.Version,
		PrivacyURL: pol.Privacy.URL, PrivacyVersion: pol.Privacy.Version}, pol, err
}

// registerPage is GET /register.
func (d *Dashboard) registerPage(w http.ResponseWriter, r *http.Request) error {
	data, _, err := d.registerData(r, "", "")
	if err != nil {
		return d.errorPage(w, r, web.Page{}, err)
	}
	return d.authPage(w, r, http.StatusOK, "register", "Create account", "", data)
}

// registerForm is POST /register: the API's registration with the
// versions of the documents in force, then the new project's key shown
// once.
func (d *Dashboard) registerForm(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	data, pol, err := d.registerData(r, f.Get("name"), f.Get("email"))
	if err != nil {
		return d.errorPage(w, r, web.Page{}, err)
	}
	req := wire.RegisterRequest{Email: f.Get("email"), Password: f.Get("password"), Name: f.Get("name"),
		AcceptTerms: f.Get("accept_terms") == "true", AcceptPrivacy: f.Get("accept_privacy") == "true",
		TermsVersion: pol.Terms.Version, PrivacyVersion: pol.Privacy.Version}
	reg, err := d.anonymous(r).register(req)
	if err != nil {
		return d.authPage(w, r, statusFor(err), "register", "Create account", messageOf(err), data)
	}
	d.Sessions.Start(w, r, reg.Tokens, false)
	csrf := d.Sessions.NewCSRF(w, r)
	p := reg.DefaultProject
	pg := web.Page{Title: "Your API key", User: reg.User.Email, CSRF: csrf, ProjectID: p.ID,
		Project: p.Name, Range: defaultRange, Ranges: ranges, Role: "admin", CanEdit: true, CanManage: true,
		Projects: []web.Project{{ID: p.ID, Name: p.Name, Selected: true}},
		Data: keyData{Heading: "Welcome: your project " + p.Name + " is ready",
			curlData: d.curl(r, p.ID, p.APIKey)}}
	return web.Render(w, http.StatusCreated, "key", pg)
}

// curl is the first-event example for project with key (a placeholder
// where the key is no longer known).
func (d *Dashboard) curl(r *http.Request, project, key string) curlData {
	origin := "http://" + r.Host
	if d.Sessions.Secure(r) {
		origin = "https://" + r.Host
	}
	if key == "" {
		key = "<YOUR_API_KEY>"
	}
	return curlData{Origin: origin, Key: key, ProjectID: project, Now: d.Now().UTC().Format(time.RFC3339)}
}

// logoutForm is POST /logout: the API's logout ends the session the
// cookies carry, then the cookies go.
func (d *Dashboard) logoutForm(w http.ResponseWriter, r *http.Request) error {
	if p, _, ok := d.Sessions.Principal(w, r); ok {
		if err := (client{api: d.API, from: r, as: p}).logout(); err != nil {
			return d.errorPage(w, r, web.Page{}, err)
		}
	}
	d.Sessions.End(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}
