package apiserver

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmcost/llmcost/apiserver/web"
	"github.com/llmcost/llmcost/internal/access"
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

func (s *Server) authPage(w http.ResponseWriter, r *http.Request, status int, tmpl, title, msg string, data any) error {
	pg := web.Page{Title: title, Error: msg, CSRF: s.csrfToken(w, r), Data: data}
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

// loginPage is GET /login; a signed-in browser goes to the overview.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) error {
	return s.authPage(w, r, http.StatusOK, "login", "Sign in", "", loginData{Next: safeNext(r.URL.Query().Get("next"))})
}

// loginForm is POST /login: POST /v1/auth/login, then the session in cookies.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	remember := f.Get("remember_me") == "true"
	var tokens tokenPayload
	err := s.callRoute(r, access.NewPrincipal(access.None, s.DB), http.MethodPost, "/v1/auth/login", nil, nil,
		loginRequest{Email: f.Get("email"), Password: f.Get("password"), RememberMe: remember}, &tokens)
	if err != nil {
		return s.authPage(w, r, statusFor(err), "login", "Sign in", messageOf(err),
			loginData{Email: f.Get("email"), Next: safeNext(f.Get("next"))})
	}
	s.setSessionCookies(w, r, tokens, sessionLife(remember))
	s.newCSRF(w, r)
	http.Redirect(w, r, safeNext(f.Get("next")), http.StatusSeeOther)
	return nil
}

func (s *Server) registerData(name, email string) registerData {
	return registerData{Name: name, Email: email, TermsURL: s.Policies.TermsURL, TermsVersion: s.Policies.TermsVersion,
		PrivacyURL: s.Policies.PrivacyURL, PrivacyVersion: s.Policies.PrivacyVersion}
}

// registerPage is GET /register.
func (s *Server) registerPage(w http.ResponseWriter, r *http.Request) error {
	return s.authPage(w, r, http.StatusOK, "register", "Create account", "", s.registerData("", ""))
}

// registerForm is POST /register: POST /v1/auth/register with the
// versions the form showed, then the new project's key shown once.
func (s *Server) registerForm(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	req := registerRequest{Email: f.Get("email"), Password: f.Get("password"), Name: f.Get("name"),
		AcceptTerms: f.Get("accept_terms") == "true", AcceptPrivacy: f.Get("accept_privacy") == "true",
		TermsVersion: s.Policies.TermsVersion, PrivacyVersion: s.Policies.PrivacyVersion}
	var reg registerResponse
	err := s.callRoute(r, access.NewPrincipal(access.None, s.DB), http.MethodPost, "/v1/auth/register", nil, nil, req, &reg)
	if err != nil {
		return s.authPage(w, r, statusFor(err), "register", "Create account", messageOf(err), s.registerData(req.Name, req.Email))
	}
	s.setSessionCookies(w, r, reg.tokenPayload, SessionTTL)
	csrf := s.newCSRF(w, r)
	pg := web.Page{Title: "Your API key", User: reg.User.Email, CSRF: csrf, ProjectID: reg.DefaultProject.ID,
		Project: reg.DefaultProject.Name, Range: defaultDashRange, Ranges: dashRanges, Role: "admin", CanEdit: true, CanManage: true,
		Projects: []web.Project{{ID: reg.DefaultProject.ID, Name: reg.DefaultProject.Name, Selected: true}},
		Data: keyData{Heading: "Welcome: your project " + reg.DefaultProject.Name + " is ready",
			curlData: s.curl(r, reg.DefaultProject.ID, reg.DefaultProject.APIKey)}}
	return web.Render(w, http.StatusCreated, "key", pg)
}

// curl is the first-event example for project with key (a placeholder
// where the key is no longer known).
func (s *Server) curl(r *http.Request, project, key string) curlData {
	origin := "http://" + r.Host
	if s.secure(r) {
		origin = "https://" + r.Host
	}
	if key == "" {
		key = "<YOUR_API_KEY>"
	}
	return curlData{Origin: origin, Key: key, ProjectID: project, Now: s.Now().UTC().Format(time.RFC3339)}
}

// logoutForm is POST /logout: POST /v1/auth/logout ends the session the
// cookies carry, then the cookies go.
func (s *Server) logoutForm(w http.ResponseWriter, r *http.Request) error {
	if p, _, ok := s.browserSession(w, r); ok {
		if err := s.callRoute(r, p, http.MethodPost, "/v1/auth/logout", nil, nil, nil, nil); err != nil {
			return s.errorPage(w, r, web.Page{}, err)
		}
	}
	s.clearCookie(w, r, sessionCookie)
	s.clearCookie(w, r, refreshCookie)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}
