package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
)

// changePassword needs the current password and ends every other session.
// A wrong current password is a 422 on that field, not a 401: the session
// itself is fine, and clients treat 401 as "signed out".
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	p := access.FromContext(r.Context())
	userID := callerOf(r).UserID
	var req wire.PasswordChangeRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.CurrentPassword == "" {
		return apierr.Field("current_password", "is required")
	}
	if err := checkPassword("new_password", req.NewPassword); err != nil {
		return err
	}
	u, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	match := false
	if u.PasswordHash == "" { // social sign-in only: no password to match
		authn.BurnVerify(req.CurrentPassword)
	} else if match, _, err = authn.VerifyPassword(u.PasswordHash, req.CurrentPassword); err != nil {
		return err
	}
	if !match {
		return apierr.Field("current_password", "is incorrect").
			WithHint("an account made by social sign-in has no password: set one with the password reset")
	}
	hash, err := authn.HashPassword(req.NewPassword)
	if err != nil {
		return err
	}
	if err := s.DB.ChangePassword(r.Context(), userID, hash, p.SessionID, s.Now()); err != nil {
		return err
	}
	return noContent(w)
}

// resetRequest answers 204 at once whether or not the address has an
// account; the look-up and the mail happen in the background. Three
// requests per address per hour, counted for unknown addresses too, so the
// 429 reveals nothing either.
func (s *Server) resetRequest(w http.ResponseWriter, r *http.Request) error {
	var req wire.ResetRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	email, err := normaliseEmail(req.Email)
	if err != nil {
		return err
	}
	if allowed, retry := s.allowMail(r.Context(), s.acct.resets, "reset", email); !allowed {
		return tooMany(w, retry, MailsPerHour, s.acct.resets.Window, "password reset requests per e-mail address")
	}
	s.sendReset(email)
	return noContent(w)
}

// resetPassword spends a reset token from the mail: new password, every
// session ended.
func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request) error {
	var req wire.PasswordResetRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Token == "" {
		return apierr.Field("token", "is required")
	}
	if err := checkPassword("new_password", req.NewPassword); err != nil {
		return err
	}
	hash, err := authn.HashPassword(req.NewPassword)
	if err != nil {
		return err
	}
	if _, err := s.DB.ResetPassword(r.Context(), authn.Hash(req.Token), hash, s.Now()); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	var req wire.VerifyRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Token == "" {
		return apierr.Field("token", "is required")
	}
	u, err := s.DB.VerifyEmail(r.Context(), authn.Hash(req.Token), s.Now())
	if err != nil {
		return err
	}
	verified := true
	return ok(w, http.StatusOK, wire.User{ID: u.ID, Email: u.Email, Name: u.Name, EmailVerified: &verified})
}

// resendVerification mails a fresh verification link to the caller, three
// times an hour at most.
func (s *Server) resendVerification(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	u, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	if u.EmailVerified {
		return ok(w, http.StatusOK, wire.VerificationResent{EmailVerified: true, VerificationEmailSent: false})
	}
	if allowed, retry := s.allowMail(r.Context(), s.acct.verifies, "verify", u.ID); !allowed {
		return tooMany(w, retry, MailsPerHour, s.acct.verifies.Window, "verification e-mails")
	}
	sent := s.sendVerification(r.Context(), u)
	return ok(w, http.StatusOK, wire.VerificationResent{EmailVerified: false, VerificationEmailSent: sent})
}
