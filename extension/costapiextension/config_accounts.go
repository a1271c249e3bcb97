package costapiextension

import (
	"errors"
	"fmt"
	stdmail "net/mail"
	"net/url"
	"time"

	"go.opentelemetry.io/collector/config/configopaque"
)

// AccountsConfig configures account mail and social sign-in.
type AccountsConfig struct {
	// PublicURL is the address users open the service at; the links in
	// verification and reset mails start with it.
	PublicURL string `mapstructure:"public_url"`
	// SMTP is the mail server; without a host no mail is sent.
	SMTP SMTPConfig `mapstructure:"smtp"`
	// Google enables sign-in with Google ID tokens.
	Google GoogleConfig `mapstructure:"google"`
	// GitHub enables sign-in with GitHub OAuth codes.
	GitHub GitHubConfig `mapstructure:"github"`
}

// SMTPConfig is the outgoing mail server.
type SMTPConfig struct {
	// Host of the SMTP server; empty turns mail off (mails are logged as
	// not sent, with their kind and recipient only).
	Host string `mapstructure:"host"`
	// Port, usually 587 (submission with STARTTLS) or 25.
	Port int `mapstructure:"port"`
	// From is the sender, "Name <address>" or a bare address.
	From string `mapstructure:"from"`
	// Username and Password authenticate with AUTH PLAIN; net/smtp sends
	// them only over TLS, or to localhost.
	Username string              `mapstructure:"username"`
	Password configopaque.String `mapstructure:"password"`
	// StartTLS requires the server to offer STARTTLS and upgrades first.
	StartTLS bool `mapstructure:"starttls"`
	// Timeout bounds one delivery.
	Timeout time.Duration `mapstructure:"timeout"`
}

// GoogleConfig is the Google sign-in client.
type GoogleConfig struct {
	// ClientIDs are this deployment's OAuth client ids, the accepted ID
	// token audiences; empty turns Google sign-in off. A comma-separated
	// string is accepted too (LLMCOST_GOOGLE_CLIENT_IDS).
	ClientIDs []string `mapstructure:"client_ids"`
	// JWKSURL serves Google's signing keys.
	JWKSURL string `mapstructure:"jwks_url"`
	// Issuers are the accepted iss values.
	Issuers []string `mapstructure:"issuers"`
}

// GitHubConfig is the GitHub OAuth app.
type GitHubConfig struct {
	// ClientID of the OAuth app; empty turns GitHub sign-in off.
	ClientID     string              `mapstructure:"client_id"`
	ClientSecret configopaque.String `mapstructure:"client_secret"`
	// TokenURL exchanges authorization codes.
	TokenURL string `mapstructure:"token_url"`
	// APIURL is the REST API root, for the user and their e-mails.
	APIURL string `mapstructure:"api_url"`
}

// Defaults of the accounts section.
const (
	DefaultPublicURL     = "http://127.0.0.1:8080"
	DefaultSMTPPort      = 587
	DefaultSMTPFrom      = "llmcost <no-reply@localhost>"
	DefaultSMTPTimeout   = 30 * time.Second
	DefaultGoogleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
	DefaultGitHubToken   = "https://github.com/login/oauth/access_token"
	DefaultGitHubAPI     = "https://api.github.com"
)

func defaultAccountsConfig() AccountsConfig {
	return AccountsConfig{
		PublicURL: DefaultPublicURL,
		SMTP:      SMTPConfig{Port: DefaultSMTPPort, From: DefaultSMTPFrom, StartTLS: true, Timeout: DefaultSMTPTimeout},
		Google:    GoogleConfig{JWKSURL: DefaultGoogleJWKSURL, Issuers: []string{"accounts.google.com", "https://accounts.google.com"}},
		GitHub:    GitHubConfig{TokenURL: DefaultGitHubToken, APIURL: DefaultGitHubAPI},
	}
}

func (a *AccountsConfig) validate() []error {
	var errs []error
	if err := checkURL(a.PublicURL); err != nil {
		errs = append(errs, fmt.Errorf("accounts.public_url: %w", err))
	}
	if s := a.SMTP; s.Host != "" {
		if s.Port < 1 || s.Port > 65535 {
			errs = append(errs, fmt.Errorf("accounts.smtp.port: must be 1 to 65535, got %d", s.Port))
		}
		if _, err := stdmail.ParseAddress(s.From); err != nil {
			errs = append(errs, fmt.Errorf("accounts.smtp.from: must be an e-mail address: %w", err))
		}
		if s.Password != "" && s.Username == "" {
			errs = append(errs, errors.New("accounts.smtp.username: required when a password is set"))
		}
		if s.Timeout < time.Second {
			errs = append(errs, fmt.Errorf("accounts.smtp.timeout: must be ≥ 1s, got %s", s.Timeout))
		}
	}
	if g := a.Google; len(g.ClientIDs) > 0 {
		if err := checkURL(g.JWKSURL); err != nil {
			errs = append(errs, fmt.Errorf("accounts.google.jwks_url: %w", err))
		}
		if len(g.Issuers) == 0 {
			errs = append(errs, errors.New("accounts.google.issuers: at least one is required"))
		}
	}
	if g := a.GitHub; g.ClientID != "" {
		if g.ClientSecret == "" {
			errs = append(errs, errors.New("accounts.github.client_secret: required with a client_id"))
		}
		if err := checkURL(g.TokenURL); err != nil {
			errs = append(errs, fmt.Errorf("accounts.github.token_url: %w", err))
		}
		if err := checkURL(g.APIURL); err != nil {
			errs = append(errs, fmt.Errorf("accounts.github.api_url: %w", err))
		}
	}
	return errs
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("must be an absolute http(s) URL, got %q", s)
	}
	return nil
}
