package apiserver

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
)

// Browser sessions (docs/dashboard.md "Sessions and CSRF"). The cookies
// carry the REST API's own session: the access token and the refresh
// token that POST /v1/auth/login or /register issued. They are HttpOnly
// (no script reads them), SameSite=Lax (no cross-site POST carries them),
// and over TLS Secure with the __Host- prefix (no sibling subdomain can
// set them). Only the dashboard's routes read them: the REST API takes
// credentials from the Authorization header alone, so a cookie never
// authorizes an API call a foreign page could forge.
const (
	sessionCookie = "llmcost_session"
	refreshCookie = "llmcost_refresh"
	csrfCookie    = "llmcost_csrf"
	csrfField     = "csrf_token"
	// maxFormBody bounds a dashboard form.
	maxFormBody = 64 << 10
)

// secure says whether the browser reached us over TLS: directly, or
// through a proxy that terminates it for a public URL that is https.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.Accounts.PublicURL, "https://")
}

func (s *Server) cookieName(r *http.Request, base string) string {
	if s.secure(r) {
		return "__Host-" + base
	}
	return base
}

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, base, value string, life time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(r, base), Value: value, Path: "/", MaxAge: int(life / time.Second),
		HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

func (s *Server) clearCookie(w http.ResponseWriter, r *http.Request, base string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(r, base), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

func (s *Server) cookieValue(r *http.Request, base string) string {
	c, err := r.Cookie(s.cookieName(r, base))
	if err != nil {
		return ""
	}
	return c.Value
}

// browserSession resolves the session cookies to a session principal and
// the user's e-mail. An expired access token is renewed with the refresh
// cookie, rotating both as POST /v1/auth/refresh does. Only page loads
// and form posts do this (static files need no session), so one browser
// rarely presents one refresh token twice; when it does, the API's reuse
// detection ends the session and the person signs in again.
func (s *Server) browserSession(w http.ResponseWriter, r *http.Request) (*access.Principal, string, bool) {
	ctx := r.Context()
	userID, sessionID, err := "", "", error(nil)
	if tok := s.cookieValue(r, sessionCookie); tok != "" {
		userID, sessionID, err = s.DB.SessionUser(ctx, authn.Hash(tok), s.Now())
	}
	if userID == "" {
		ref := s.cookieValue(r, refreshCookie)
		if ref == "" {
			return nil, "", false
		}
		next, tokens := s.newSession(false)
		sess, _, rerr := s.DB.RefreshSession(ctx, authn.Hash(ref), next, s.Now())
		if rerr != nil {
			s.clearCookie(w, r, sessionCookie)
			s.clearCookie(w, r, refreshCookie)
			return nil, "", false
		}
		s.setSessionCookies(w, r, tokens, sess.ExpiresAt.Sub(s.Now()))
		userID, sessionID, err = sess.UserID, sess.ID, nil
	}
	if err != nil {
		return nil, "", false
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return nil, "", false
	}
	p := access.NewPrincipal(access.Session, s.DB)
	p.UserID, p.SessionID = userID, sessionID
	return p, u.Email, true
}

// setSessionCookies stores a token pair in the browser for the session's
// life; the access token itself still expires after AccessTTL.
func (s *Server) setSessionCookies(w http.ResponseWriter, r *http.Request, t wire.Tokens, life time.Duration) {
	s.setCookie(w, r, sessionCookie, t.AccessToken, life)
	s.setCookie(w, r, refreshCookie, t.RefreshToken, life)
}

// csrfToken is the browser's CSRF token, minted into its cookie on first
// use.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if v := s.cookieValue(r, csrfCookie); len(v) >= 32 {
		return v
	}
	return s.newCSRF(w, r)
}

// newCSRF replaces the CSRF token; sign-in does so, so a token planted
// before the session cannot be used with it.
func (s *Server) newCSRF(w http.ResponseWriter, r *http.Request) string {
	v := authn.NewToken("csrf_")
	s.setCookie(w, r, csrfCookie, v, RememberMeSession)
	return v
}

// crossOrigin refuses non-safe requests that the browser marks as coming
// from another origin (Sec-Fetch-Site, else Origin against Host).
var crossOrigin = http.NewCrossOriginProtection()

// browserForm admits a dashboard form post: same origin, and a csrf_token field
// equal to the browser's CSRF cookie (double submit: a foreign page can
// neither read the cookie nor set it). Anything else is 403 before the
// handler runs. Whether the browser is signed in is the handler's
// business, as for pages.
var browserForm = guard{"dashboard form: same origin and the CSRF token of its cookie (403 without)",
	func(s *Server, r *http.Request) (caller, error) {
		if err := crossOrigin.Check(r); err != nil {
			return caller{}, apierr.New(apierr.Forbidden, "cross-origin form post refused")
		}
		r.Body = http.MaxBytesReader(nil, r.Body, maxFormBody)
		if err := r.ParseForm(); err != nil {
			return caller{}, apierr.New(apierr.BadRequest, "malformed form body")
		}
		want, got := s.cookieValue(r, csrfCookie), r.PostForm.Get(csrfField)
		if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
			return caller{}, apierr.New(apierr.Forbidden, "missing or stale CSRF token").
				WithHint("reload the page and submit the form again")
		}
		return caller{}, nil
	}}

// browserPage admits every browser: a page answers a missing session itself,
// with a redirect to sign in.
var browserPage = guard{"dashboard page: the session cookie, else a redirect to sign in",
	func(*Server, *http.Request) (caller, error) { return caller{}, nil }}

// sessionLife is how long a new browser session lasts.
func sessionLife(remember bool) time.Duration {
	if remember {
		return RememberMeSession
	}
	return SessionTTL
}

// browserSessions are the browser's credentials as the dashboard uses
// them: it reads and sets the cookies only through these.
type browserSessions struct{ s *Server }

// Principal resolves the session cookies (browserSession).
func (b browserSessions) Principal(w http.ResponseWriter, r *http.Request) (*access.Principal, string, bool) {
	return b.s.browserSession(w, r)
}

// Start keeps a new session's tokens in cookies for its life.
func (b browserSessions) Start(w http.ResponseWriter, r *http.Request, t wire.Tokens, remember bool) {
	b.s.setSessionCookies(w, r, t, sessionLife(remember))
}

// End removes the session's cookies.
func (b browserSessions) End(w http.ResponseWriter, r *http.Request) {
	b.s.clearCookie(w, r, sessionCookie)
	b.s.clearCookie(w, r, refreshCookie)
}

// CSRFToken is the browser's CSRF token, minted on first use.
func (b browserSessions) CSRFToken(w http.ResponseWriter, r *http.Request) string {
	return b.s.csrfToken(w, r)
}

// NewCSRF replaces the browser's CSRF token.
func (b browserSessions) NewCSRF(w http.ResponseWriter, r *http.Request) string {
	return b.s.newCSRF(w, r)
}

// Secure says whether the browser reached us over TLS.
func (b browserSessions) Secure(r *http.Request) bool { return b.s.secure(r) }
