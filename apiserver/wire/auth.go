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
