package apiserver

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/social"
)

func notConfigured(provider string) error {
	return apierr.New(apierr.NotFound, provider+" sign-in is not configured on this server").
		WithHint("sign in with e-mail and password")
}

// googleSignIn verifies a Google ID token and signs its user in, creating
// the account when absent.
func (s *Server) googleSignIn(w http.ResponseWriter, r *http.Request) error {
	if s.Accounts.Google == nil {
		return notConfigured("Google")
	}
	var req wire.GoogleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.IDToken == "" {
		return apierr.Field("id_token", "is required")
	}
	id, err := s.Accounts.Google.Verify(r.Context(), req.IDToken)
	if err != nil {
		return err
	}
	return s.socialSession(w, r, id)
}

// githubSignIn exchanges an OAuth code from GitHub's redirect. The state
// parameter of that redirect is checked by the client that received it;
// this endpoint only ever sees the code.
func (s *Server) githubSignIn(w http.ResponseWriter, r *http.Request) error {
	if s.Accounts.GitHub == nil {
		return notConfigured("GitHub")
	}
	var req wire.GitHubRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Code == "" {
		return apierr.Field("code", "is required")
	}
	if req.RedirectURI != "" {
		if u, err := url.Parse(req.RedirectURI); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return apierr.Field("redirect_uri", "must be an absolute http(s) URL")
		}
	}
	id, err := s.Accounts.GitHub.Exchange(r.Context(), req.Code, req.RedirectURI)
	if err != nil {
		return err
	}
	return s.socialSession(w, r, id)
}

// socialSession signs in (or creates) the identity's user and answers the
// token payload.
func (s *Server) socialSession(w http.ResponseWriter, r *http.Request, id social.Identity) error {
	sess, tokens := s.newSession(false)
	// The provider's address in llmcost's one form, so that it matches an
	// account exactly (never by Unicode case folding).
	email, valid := authn.NormalizeEmail(id.Email)
	if !valid {
		email, id.EmailVerified = strings.TrimSpace(id.Email), false
	}
	u, _, err := s.DB.SocialSignIn(r.Context(), postgres.Identity{Provider: id.Provider, Subject: id.Subject,
		Email: email, EmailVerified: id.EmailVerified, Name: id.Name}, sess, s.Now())
	if err != nil {
		return err
	}
	verified := u.EmailVerified
	tokens.User = wire.User{ID: u.ID, Email: u.Email, Name: u.Name, EmailVerified: &verified}
	return ok(w, http.StatusOK, tokens)
}
