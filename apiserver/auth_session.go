package apiserver

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

// refresh rotates the token pair. A refresh token that was already used
// revokes its whole session (reuse detection); clients must not refresh
// concurrently with one token.
func (s *Server) refresh(w http.ResponseWriter, r *http.Request) error {
	var req wire.RefreshRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.RefreshToken == "" {
		return apierr.Field("refresh_token", "is required")
	}
	now := s.Now()
	next, tokens := s.newSession(false)
	sess, reused, err := s.DB.RefreshSession(r.Context(), authn.Hash(req.RefreshToken), next, now)
	if reused != "" {
		s.Logger.Warn("refresh token reused: session revoked", zap.String("session_id", reused))
	}
	if err != nil {
		return err
	}
	user, err := s.DB.UserByID(r.Context(), sess.UserID)
	if err != nil {
		return err
	}
	tokens.ExpiresIn = int(min(AccessTTL, sess.ExpiresAt.Sub(now)) / time.Second)
	tokens.User = wire.User{ID: user.ID, Email: user.Email, Name: user.Name}
	return ok(w, http.StatusOK, tokens)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	p := access.FromContext(r.Context())
	if err := s.DB.RevokeSession(r.Context(), p.SessionID, s.Now()); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) logoutAll(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	if err := s.DB.RevokeUserSessions(r.Context(), userID, "", s.Now()); err != nil {
		return err
	}
	return noContent(w)
}

func newProfileJSON(u postgres.User) wire.Profile {
	out := wire.Profile{ID: u.ID, Email: u.Email, Name: u.Name, EmailVerified: u.EmailVerified,
		CreatedAt: ts(u.CreatedAt), HasPassword: u.PasswordHash != ""}
	if u.LastActiveAt != nil {
		at := ts(*u.LastActiveAt)
		out.LastActiveAt = &at
	}
	return out
}

// me returns the profile and records activity, at most every 5 minutes.
func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	u, err := s.DB.TouchUser(r.Context(), userID, s.Now(), LastActiveWindow)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, newProfileJSON(u))
}

func (s *Server) updateMe(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	var req wire.ProfileRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Name == nil {
		return apierr.Field("name", "is required: it is the only field a profile update changes")
	}
	name := strings.TrimSpace(*req.Name)
	if utf8.RuneCountInString(name) > 200 {
		return apierr.Field("name", "must be at most 200 characters")
	}
	u, err := s.DB.SetUserName(r.Context(), userID, name, s.Now())
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, newProfileJSON(u))
}
