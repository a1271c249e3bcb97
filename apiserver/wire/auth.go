package wire

// RegisterRequest is the body of POST /v1/auth/register: the versions
// are those of the documents the person was shown and accepted.
type RegisterRequest struct {
	Email          string `json:"email"`
	Password       string `json:"password"`
	Name           string `json:"name"`
	AcceptTerms    bool   `json:"accept_terms"`
	AcceptPrivacy  bool   `json:"accept_privacy"`
	TermsVersion   string `json:"terms_version"`
	PrivacyVersion string `json:"privacy_version"`
}

// LoginRequest is the body of POST /v1/auth/login.
type LoginRequest struct {
	Email      string `json:"email"`
	Password   string `json:"password"`
	RememberMe bool   `json:"remember_me"`
}

// User is the signed-in user as a token answer names it.
type User struct {
	ID            string `json:"id"`
	Email         string `json:"email"`
	Name          string `json:"name"`
	EmailVerified *bool  `json:"email_verified,omitempty"`
}

// Tokens is a new session: POST /v1/auth/login, /refresh and the social
// sign-ins.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	User         User   `json:"user"`
}

// Registered is POST /v1/auth/register: the session, and the default
// project with its key, shown once.
type Registered struct {
	Tokens
	VerificationEmailSent bool           `json:"verification_email_sent"`
	DefaultProject        DefaultProject `json:"default_project"`
}

// DefaultProject is the project a new account starts with.
type DefaultProject struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	APIKey string `json:"api_key"`
}

// Policy names one policy document's current version.
type Policy struct {
	Version string `json:"version"`
	URL     string `json:"url"`
}

// Policies is GET /v1/auth/policies/current: the documents a new account
// accepts.
type Policies struct {
	Terms   Policy `json:"terms"`
	Privacy Policy `json:"privacy"`
}

// PasswordChangeRequest is the body of POST /v1/auth/password/change.
type PasswordChangeRequest struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

// ResetRequest is the body of POST /v1/auth/password/reset-request.
type ResetRequest struct {
	Email string `json:"email"`
}

// PasswordResetRequest is the body of POST /v1/auth/password/reset: the
// token the reset mail carried and the new password.
type PasswordResetRequest struct {
	Token       string `json:"token"`
	NewPassword string `json:"new_password"`
}

// VerifyRequest is the body of POST /v1/auth/verify-email: the token the
// verification mail carried.
type VerifyRequest struct {
	Token string `json:"token"`
}

// VerificationResent is POST /v1/auth/verify-email/resend.
type VerificationResent struct {
	EmailVerified         bool `json:"email_verified"`
	VerificationEmailSent bool `json:"verification_email_sent"`
}

// RefreshRequest is the body of POST /v1/auth/refresh.
type RefreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// Profile is the profile record of GET and PATCH /v1/auth/me.
type Profile struct {
	ID            string  `json:"id"`
	Email         string  `json:"email"`
	Name          string  `json:"name"`
	EmailVerified bool    `json:"email_verified"`
	CreatedAt     string  `json:"created_at"`
	LastActiveAt  *string `json:"last_active_at"`
	HasPassword   bool    `json:"has_password"`
}

// ProfileRequest is the body of PATCH /v1/auth/me: an absent name stays as
// it is.
type ProfileRequest struct {
	Name *string `json:"name"`
}

// GoogleRequest is the body of POST /v1/auth/google: the ID token Google
// issued to the browser.
type GoogleRequest struct {
	IDToken string `json:"id_token"`
}

// GitHubRequest is the body of POST /v1/auth/github: the OAuth code and the
// redirect URI it was issued for.
type GitHubRequest struct {
	Code        string `json:"code"`
	RedirectURI string `json:"redirect_uri"`
}

// PolicyCheck is the policy check result (GET /v1/auth/policies/status): per
// document the current version and the one the user accepted last (null:
// none).
type PolicyCheck struct {
	RequiresReacceptance bool               `json:"requires_reacceptance"`
	Outdated             []string           `json:"outdated"`
	Current              map[string]string  `json:"current"`
	Accepted             map[string]*string `json:"accepted"`
}

// Consent is one item of the body of POST /v1/auth/policies/accept: a
// document and the version accepted.
type Consent struct {
	Document string `json:"document"`
	Version  string `json:"version"`
}
