package apiserver

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

// listProjects is GET /v1/projects: the caller's projects with their role.
func (s *Server) listProjects(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	rows, err := s.DB.UserProjects(r.Context(), userID)
	if err != nil {
		return err
	}
	out := make([]wire.Project, 0, len(rows))
	for _, p := range rows {
		out = append(out, withRole(newProjectJSON(p.Project), p.Role, p.IsOwner))
	}
	return ok(w, http.StatusOK, wire.ProjectList{Projects: out, Total: len(out)})
}

// getProject is GET /v1/projects/{project_id}, for members and the project's key.
func (s *Server) getProject(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	p, err := s.DB.ProjectByID(r.Context(), id)
	if err != nil {
		return err
	}
	j := newProjectJSON(p)
	if pr := access.FromContext(r.Context()); pr.Kind == access.Session {
		role, owner, err := s.DB.MemberRole(r.Context(), id, pr.UserID)
		if err != nil {
			return err
		}
		j = withRole(j, role, owner)
	}
	return ok(w, http.StatusOK, j)
}

func checkProjectPatch(req *wire.ProjectPatchRequest) error {
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		switch {
		case name == "":
			return apierr.Field("name", "must not be empty")
		case utf8.RuneCountInString(name) > 200:
			return apierr.Field("name", "must be at most 200 characters")
		}
		req.Name = &name
	}
	if req.Description != nil && utf8.RuneCountInString(*req.Description) > 2000 {
		return apierr.Field("description", "must be at most 2000 characters")
	}
	return nil
}

// updateProject is PATCH /v1/projects/{project_id}; absent fields stay.
func (s *Server) updateProject(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	var req wire.ProjectPatchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkProjectPatch(&req); err != nil {
		return err
	}
	p, err := s.DB.UpdateProject(r.Context(), id, postgres.ProjectUpdate{Name: req.Name,
		Description: req.Description, IsActive: req.IsActive}, s.Now())
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, newProjectJSON(p))
}

// deleteProject deletes the project for every caller at once; its events
// and analytics are removed in the background (postgres.DeleteProject).
func (s *Server) deleteProject(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	if err := s.DB.DeleteProject(r.Context(), id, s.Now()); err != nil {
		return err
	}
	return ok(w, http.StatusOK, wire.ProjectDeleted{Status: "deleted", ProjectID: id})
}

// rotateKey replaces the project's API key; the old one fails at once.
func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	key := authn.NewAPIKey()
	p, err := s.DB.RotateKey(r.Context(), id, authn.Hash(key), authn.KeyPrefix(key), s.Now())
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, wire.KeyRotated{Status: "rotated", ProjectID: p.ID, APIKey: key,
		KeyPrefix: p.KeyPrefix, Message: storeKeyWarning + " The previous key no longer works."})
}
