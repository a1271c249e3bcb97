package apiserver

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
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
		return "", apierr.New(apierr.NotFound, "project not found")
	case perm != access.ViewAnalytics:
		return "", apierr.New(apierr.Forbidden, "an API key cannot manage its project").
			WithHint("use a session of a project admin")
	}
	return id, nil
}
