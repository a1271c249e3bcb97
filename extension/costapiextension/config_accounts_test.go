package costapiextension

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestAccountsConfigDecodes(t *testing.T) {
	cfg := load(t, "costapi/accounts")
	if err := cfg.Accounts.validate(); err != nil {
		t.Fatal(err)
	}
	a := cfg.Accounts
	switch {
	case a.PublicURL != "https://app.example.com":
		t.Fatalf("public_url %q", a.PublicURL)
	case a.SMTP.Host != "smtp.example.com" || a.SMTP.Port != 2525 || a.SMTP.From != "llmcost <no-reply@example.com>" ||
		a.SMTP.Username != "mailer" || string(a.SMTP.Password) != "s3cret-smtp" || a.SMTP.StartTLS || a.SMTP.Timeout != 5*time.Second:
		t.Fatalf("smtp %+v", a.SMTP)
	case len(a.Google.ClientIDs) != 2 || a.Google.JWKSURL != "https://keys.example.com/certs" ||
		!slices.Equal(a.Google.Issuers, []string{"https://accounts.google.com"}):
		t.Fatalf("google %+v", a.Google)
	case a.GitHub.ClientID != "Iv1.abc" || string(a.GitHub.ClientSecret) != "gh-s3cret" ||
		a.GitHub.TokenURL != "https://gh.example.com/login/oauth/access_token" || a.GitHub.APIURL != "https://api.gh.example.com":
		t.Fatalf("github %+v", a.GitHub)
	}
	acc := a.accounts(zap.NewNop())
	if acc.Mailer == nil || acc.Google == nil || acc.GitHub == nil ||
		!slices.Equal(acc.Google.ClientIDs, []string{"one.apps.googleusercontent.com", "two.apps.googleusercontent.com"}) {
		t.Fatalf("built %+v", acc)
	}
	// Secrets are opaque: printing the config does not show them.
	if s := a.SMTP.Password.String(); strings.Contains(s, "s3cret") {
		t.Fatalf("smtp password printed as %q", s)
	}
}

func TestAccountsConfigValidateNamesEachBadField(t *testing.T) {
	err := load(t, "costapi/accounts_bad").Validate()
	if err == nil {
		t.Fatal("invalid accounts config accepted")
	}
	for _, field := range []string{"accounts.public_url", "accounts.smtp.port", "accounts.smtp.from", "accounts.smtp.username",
		"accounts.smtp.timeout", "accounts.google.jwks_url", "accounts.google.issuers", "accounts.github.client_secret",
		"accounts.github.token_url", "accounts.github.api_url"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
}

func TestDefaultAccountsTurnEverythingOff(t *testing.T) {
	acc := createDefaultConfig().(*Config).Accounts.accounts(zap.NewNop())
	if acc.Mailer != nil || acc.Google != nil || acc.GitHub != nil || acc.PublicURL != DefaultPublicURL {
		t.Fatalf("defaults %+v", acc)
	}
}
