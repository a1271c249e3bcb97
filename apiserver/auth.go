package apiserver

import (
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Token and session lifetimes (docs/accounts.md "Tokens and sessions").
const (
	AccessTTL         = time.Hour
	SessionTTL        = 7 * 24 * time.Hour
	RememberMeSession = 30 * 24 * time.Hour
)

func (s *Server) register(w http.ResponseWriter, r *http.Request) error {
	var req wire.RegisterRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	email, err := s.checkRegistration(&req)
	if err != nil {
		return err
	}
	hash, err := authn.HashPassword(req.Password)
	if err != nil {
		return err
	}
	key := authn.NewAPIKey()
	sess, tokens := s.newSession(false)
	ip, ua := clientIP(r), r.UserAgent()
	user, proj, err := s.DB.Register(r.Context(),
		postgres.User{Email: email, Name: strings.TrimSpace(req.Name), PasswordHash: hash},
		[]postgres.Consent{{Document: "terms", Version: req.TermsVersion, IP: ip, UserAgent: ua},
			{Document: "privacy", Version: req.PrivacyVersion, IP: ip, UserAgent: ua}},
		postgres.NewProject{Name: "Default project", KeyHash: authn.Hash(key), KeyPrefix: authn.KeyPrefix(key)},
		sess)
	if err != nil {
		return err
	}
	verified := false
	sent := s.sendVerification(r.Context(), user)
	tokens.User = wire.User{ID: user.ID, Email: user.Email, Name: user.Name, EmailVerified: &verified}
	return ok(w, http.StatusCreated, wire.Registered{
		Tokens:                tokens,
		VerificationEmailSent: sent,
		DefaultProject:        wire.DefaultProject{ID: proj.ID, Name: proj.Name, APIKey: key},
	})
}

// checkRegistration validates a registration and returns the normalised e-mail.
func (s *Server) checkRegistration(req *wire.RegisterRequest) (string, error) {
	email, err := normaliseEmail(req.Email)
	if err != nil {
		return "", err
	}
	if err := checkPassword("password", req.Password); err != nil {
		return "", err
	}
	switch {
	case !req.AcceptTerms:
		return "", apierr.Field("accept_terms", "must be true")
	case !req.AcceptPrivacy:
		return "", apierr.Field("accept_privacy", "must be true")
	case req.TermsVersion != s.Policies.TermsVersion:
		return "", apierr.Field("terms_version", "must be the current version "+s.Policies.TermsVersion)
	case req.PrivacyVersion != s.Policies.PrivacyVersion:
		return "", apierr.Field("privacy_version", "must be the current version "+s.Policies.PrivacyVersion)
	case utf8.RuneCountInString(req.Name) > 200:
		return "", apierr.Field("name", "must be at most 200 characters")
	}
	return email, nil
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	// Not decode: a NUL in the e-mail or password is a failed sign-in
	// (401), not a validation answer that says which field held it.
	var req wire.LoginRequest
	body, err := readJSON(r)
	if err != nil {
		return err
	}
	if err := decodeBody(body, &req); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(req.Email) == "":
		return apierr.Field("email", "is required")
	case req.Password == "":
		return apierr.Field("password", "is required")
	}
	bad := apierr.New(apierr.InvalidCredentials, "invalid e-mail or password")
	email, valid := authn.NormalizeEmail(req.Email)
	if !valid || strings.ContainsRune(req.Password, 0) {
		authn.BurnVerify(req.Password)
		return bad
	}
	user, err := s.DB.UserByEmail(r.Context(), email)
	if err != nil {
		if apierr.As(err).Code != apierr.NotFound {
			return err
		}
		authn.BurnVerify(req.Password) // same time as a wrong password
		return bad
	}
	if user.PasswordHash == "" { // social sign-in only: same time, same answer
		authn.BurnVerify(req.Password)
		return bad
	}
	match, rehash, err := authn.VerifyPassword(user.PasswordHash, req.Password)
	if err != nil || !match {
		return bad
	}
	if rehash {
		if h, err := authn.HashPassword(req.Password); err == nil {
			_ = s.DB.SetPasswordHash(r.Context(), user.ID, h)
		}
	}
	sess, tokens := s.newSession(req.RememberMe)
	sess.UserID = user.ID
	if err := s.DB.CreateSession(r.Context(), sess); err != nil {
		return err
	}
	tokens.User = wire.User{ID: user.ID, Email: user.Email, Name: user.Name}
	return ok(w, http.StatusOK, tokens)
}

// newSession mints a token pair; only their hashes go into the session row.
func (s *Server) newSession(rememberMe bool) (postgres.Session, wire.Tokens) {
	now := s.Now()
	access, refresh := authn.NewToken("lca_"), authn.NewToken("lcr_")
	life := SessionTTL
	if rememberMe {
		life = RememberMeSession
	}
	sess := postgres.Session{
		AccessHash: authn.Hash(access), AccessExpiresAt: now.Add(AccessTTL),
		RefreshHash: authn.Hash(refresh), ExpiresAt: now.Add(life), RememberMe: rememberMe,
	}
	return sess, wire.Tokens{AccessToken: access, RefreshToken: refresh, TokenType: "bearer",
		ExpiresIn: int(AccessTTL.Seconds())}
}

// normaliseEmail is authn.NormalizeEmail (ASCII letters lowercased, no
// Unicode folding; docs/accounts.md) as a validation error naming email.
func normaliseEmail(s string) (string, error) {
	email, ok := authn.NormalizeEmail(s)
	if !ok {
		return "", apierr.Field("email", "must be a valid e-mail address")
	}
	return email, nil
}

func checkPassword(field, pw string) error {
	if n := utf8.RuneCountInString(pw); n < 8 || n > 128 {
		return apierr.Field(field, "must be 8 to 128 characters")
	}
	return nil
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
