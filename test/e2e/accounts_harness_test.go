package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmcost/llmcost/internal/mail/smtptest"
	"github.com/llmcost/llmcost/internal/social/socialtest"
)

// acctEnv is a running llmcost wired to a real SMTP listener and local
// identity providers, recording every secret it hands out and every error
// body it receives so a test can prove neither leaks.
type acctEnv struct {
	t      *testing.T
	s      *service
	smtp   *smtptest.Server
	google *socialtest.Google
	github *socialtest.GitHub

	secrets   []string
	errBodies []string
}

const acctPassword = "correct horse battery"

func startAccounts(t *testing.T) *acctEnv {
	t.Helper()
	a := &acctEnv{t: t, smtp: smtptest.Start(t), google: socialtest.NewGoogle(t), github: socialtest.NewGitHub(t)}
	a.s = start(t, map[string]string{
		"LLMCOST_SMTP_HOST": a.smtp.Host(), "LLMCOST_SMTP_PORT": strconv.Itoa(a.smtp.Port()), "LLMCOST_SMTP_STARTTLS": "false",
		"LLMCOST_PUBLIC_URL":        "https://app.llmcost.test",
		"LLMCOST_GOOGLE_CLIENT_IDS": a.google.ClientID, "LLMCOST_GOOGLE_JWKS_URL": a.google.JWKSURL(),
		"LLMCOST_GITHUB_CLIENT_ID": a.github.ClientID, "LLMCOST_GITHUB_CLIENT_SECRET": a.github.ClientSecret,
		"LLMCOST_GITHUB_TOKEN_URL": a.github.TokenURL(), "LLMCOST_GITHUB_API_URL": a.github.APIURL(),
		// The most talkative level makes the leak check strictest.
		"LLMCOST_LOG_LEVEL": "debug",
	})
	a.secret(acctPassword, a.github.ClientSecret)
	return a
}

// secret remembers values that must never appear in logs or error bodies.
func (a *acctEnv) secret(vals ...string) {
	for _, v := range vals {
		if v != "" {
			a.secrets = append(a.secrets, v)
		}
	}
}

// call sends a request, requires the status, and keeps error bodies.
func (a *acctEnv) call(method, path, bearer string, body any, status int) response {
	a.t.Helper()
	r := a.s.call(a.t, method, path, bearer, body)
	if r.Status >= 400 {
		a.errBodies = append(a.errBodies, string(r.Raw))
	}
	return r.must(a.t, status)
}

// acctUser is a registered account and its first session.
type acctUser struct {
	ID, Email, Access, Refresh, ProjectID, Key string
}

var acctSeq atomic.Int64

func (a *acctEnv) register(prefix string) acctUser {
	a.t.Helper()
	email := fmt.Sprintf("%s%d@example.com", prefix, acctSeq.Add(1))
	r := a.call("POST", "/v1/auth/register", "", map[string]any{"email": email, "password": acctPassword, "name": prefix,
		"accept_terms": true, "accept_privacy": true, "terms_version": "2026-01-01", "privacy_version": "2026-01-01"}, http.StatusCreated)
	p := r.Body["default_project"].(map[string]any)
	u := acctUser{ID: r.Body["user"].(map[string]any)["id"].(string), Email: email, Access: r.Body["access_token"].(string),
		Refresh: r.Body["refresh_token"].(string), ProjectID: p["id"].(string), Key: p["api_key"].(string)}
	a.secret(u.Access, u.Refresh, u.Key)
	return u
}

// verify confirms u's address with the token of the n-th verification mail.
func (a *acctEnv) verify(u acctUser, n int) {
	a.t.Helper()
	tok := a.smtp.Wait(a.t, u.Email, "Confirm your e-mail", n).Token(a.t)
	a.secret(tok)
	r := a.call("POST", "/v1/auth/verify-email", "", map[string]string{"token": tok}, http.StatusOK)
	if r.Body["email_verified"] != true {
		a.t.Fatalf("verify: %s", r.Raw)
	}
}

func (a *acctEnv) login(email, password string, remember bool, status int) response {
	a.t.Helper()
	r := a.call("POST", "/v1/auth/login", "", map[string]any{"email": email, "password": password, "remember_me": remember}, status)
	if status == http.StatusOK {
		a.secret(str(r, "access_token"), str(r, "refresh_token"))
	}
	return r
}

func str(r response, key string) string { s, _ := r.Body[key].(string); return s }

func obj(r response, key string) map[string]any { m, _ := r.Body[key].(map[string]any); return m }

// checkNoSecrets stops the service, so its logs are complete, and fails if
// any secret handed out or used appears in its output or an error body.
func (a *acctEnv) checkNoSecrets() {
	a.t.Helper()
	a.s.stop(a.t)
	logs := a.s.stderr.String()
	if !strings.Contains(logs, "llmcost API listening") {
		a.t.Fatalf("captured no logs:\n%s", logs)
	}
	for _, secret := range a.secrets {
		if strings.Contains(logs, secret) {
			a.t.Errorf("a secret (%.12s…) appears in the logs", secret)
		}
		for _, body := range a.errBodies {
			if strings.Contains(body, secret) {
				a.t.Errorf("a secret (%.12s…) appears in an error body: %s", secret, body)
			}
		}
	}
	if len(a.secrets) < 10 || len(a.errBodies) < 10 {
		a.t.Fatalf("the leak check saw only %d secrets and %d error bodies", len(a.secrets), len(a.errBodies))
	}
}
