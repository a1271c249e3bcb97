package apiserver

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

func isNotFound(err error) bool { return apierr.As(err).Code == apierr.NotFound }

// pathID reads a UUID path variable. Anything that is not a UUID names no
// resource, so it is 404, the same as an id that does not exist.
func pathID(r *http.Request, name, what string) (string, error) {
	id, err := uuid.Parse(mux.Vars(r)[name])
	if err != nil {
		return "", apierr.New(apierr.NotFound, what+" not found")
	}
	return id.String(), nil
}

// projectID is the project named by the path's {project_id}.
func projectID(r *http.Request) (string, error) { return pathID(r, "project_id", "project") }

// sessionProject resolves the path's project for a session holding perm:
// not an accepted member is 404 (another project's existence is not
// revealed), a member lacking perm is 403.
func (s *Server) sessionProject(r *http.Request, perm access.Permission) (id, userID string, err error) {
	p := access.FromContext(r.Context())
	if userID, err = p.RequireSession(); err != nil {
		return "", "", err
	}
	if id, err = projectID(r); err != nil {
		return "", "", err
	}
	return id, userID, p.RequireRole(r.Context(), id, perm)
}

// bearerProject is sessionProject for routes an API key may also call: a
// key reaches only its own project (another is 404) and only for reads.
func (s *Server) bearerProject(r *http.Request, perm access.Permission) (string, error) {
	p := access.FromContext(r.Context())
	if p.Kind != access.APIKey {
		id, _, err := s.sessionProject(r, perm)
		return id, err
	}
	id, err := projectID(r)
	switch {
	case err != nil:
		return "", err
	case id != p.ProjectID:
		// The key's project is known to its holder: naming another one is
		// refused as on every route that takes a project (docs/api.md
		// "Credentials"), not hidden behind a 404.
		return "", apierr.New(apierr.Forbidden, "the project in the path does not match the API key's project").
			WithHint("an API key reaches only its own project: use that project's id, or GET /v1/projects/me")
	case perm != access.ViewAnalytics:
		return "", apierr.New(apierr.Forbidden, "an API key cannot manage its project").
			WithHint("use a session of a project admin")
	}
	return id, nil
}

// addressProven reports whether u's e-mail may be trusted as theirs: it is
// verified, or the deployment has no mail to verify it with, where refusing
// would leave invitations unanswerable (and nothing could prove it anyway).
func (s *Server) addressProven(u postgres.User) bool {
	return u.EmailVerified || s.Accounts.Mailer == nil
}

// verifiedUser returns the session's user, who must have confirmed their
// address where mail can confirm it: invitations are addressed by e-mail,
// and registering does not prove owning one.
func (s *Server) verifiedUser(r *http.Request) (postgres.User, error) {
	userID, err := access.FromContext(r.Context()).RequireSession()
	if err != nil {
		return postgres.User{}, err
	}
	u, err := s.DB.UserByID(r.Context(), userID)
	if err == nil && !s.addressProven(u) {
		err = apierr.New(apierr.Forbidden, "confirm your e-mail address before answering invitations").
			WithHint("open the link in the verification mail, or ask for a new one with POST /v1/auth/verify-email/resend")
	}
	return u, err
}
