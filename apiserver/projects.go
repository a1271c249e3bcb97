package apiserver

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

func (s *Server) createProject(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	var req wire.ProjectRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	switch {
	case req.Name == "":
		return apierr.Field("name", "is required")
	case utf8.RuneCountInString(req.Name) > 200:
		return apierr.Field("name", "must be at most 200 characters")
	case utf8.RuneCountInString(req.Description) > 2000:
		return apierr.Field("description", "must be at most 2000 characters")
	}
	user, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	key := authn.NewAPIKey()
	proj, err := s.DB.CreateProject(r.Context(), postgres.NewProject{Name: req.Name, Description: req.Description,
		OwnerID: user.ID, OwnerEmail: user.Email, KeyHash: authn.Hash(key), KeyPrefix: authn.KeyPrefix(key)})
	if err != nil {
		return err
	}
	return ok(w, http.StatusCreated, withKey(newProjectJSON(proj), proj, key))
}

func (s *Server) keyProject(w http.ResponseWriter, r *http.Request) error {
	projectID := callerOf(r).ProjectID
	proj, err := s.DB.ProjectByID(r.Context(), projectID)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, newProjectJSON(proj))
}
