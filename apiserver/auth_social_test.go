package apiserver

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/social/socialtest"
)

func TestGoogleSignInCreatesThenFindsTheUser(t *testing.T) {
	e := newEnv(t)
	tok := e.google.Sign(e.google.Claims("g-1", "Gina@Example.com", true, e.clock.Now()))
	r := e.must(e.do("POST", "/v1/auth/google", "", map[string]string{"id_token": tok}), 200)
	usr := r.obj("user")
	if usr["email"] != "gina@example.com" || usr["email_verified"] != true || r.Body["expires_in"] != float64(3600) ||
		r.str("token_type") != "bearer" || r.str("refresh_token") == "" {
		t.Fatalf("payload %s", r.Raw)
	}
	me := e.must(e.do("GET", "/v1/auth/me", r.str("access_token"), nil), 200)
	if me.Body["has_password"] != false || me.Body["email_verified"] != true {
		t.Fatalf("profile %s", me.Raw)
	}
	// No password: the password login fails like any wrong password.
	if l := e.login("gina@example.com", testPassword, false); l.Status != 401 || l.obj("error")["code"] != "invalid_credentials" {
		t.Fatalf("password login of a social account: %s", l.Raw)
	}
	// The same subject signs in to the same account, even with a new address.
	again := e.must(e.do("POST", "/v1/auth/google", "", map[string]string{
		"id_token": e.google.Sign(e.google.Claims("g-1", "gina.new@example.com", false, e.clock.Now()))}), 200)
	if again.obj("user")["id"] != usr["id"] {
		t.Fatal("a known subject made a second account")
	}
	// Policies were never accepted by a social sign-up.
	if st := e.must(e.do("GET", "/v1/auth/policies/status", r.str("access_token"), nil), 200); st.Body["requires_reacceptance"] != true {
		t.Fatalf("policy status %s", st.Raw)
	}
}

func TestGoogleSignInRefusals(t *testing.T) {
	e := newEnv(t)
	now := e.clock.Now()
	claims := func(k string, v any) map[string]any {
		c := e.google.Claims("g-2", "x@example.com", true, now)
		c[k] = v
		return c
	}
	for name, tok := range map[string]string{
		"wrong audience": e.google.Sign(claims("aud", "someone-else")),
		"wrong issuer":   e.google.Sign(claims("iss", "https://evil.example.com")),
		"expired":        e.google.Sign(claims("exp", now.Add(-time.Hour).Unix())),
		"alg none":       e.google.SignRaw(map[string]any{"alg": "none"}, claims("x", 1), func([]byte) []byte { return nil }),
		"unverified":     e.google.Sign(claims("email_verified", false)),
	} {
		if r := e.do("POST", "/v1/auth/google", "", map[string]string{"id_token": tok}); r.Status != 401 {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	e.must(e.do("POST", "/v1/auth/google", "", map[string]string{}), 422)
	e.must(e.do("POST", "/v1/auth/google", "", map[string]string{"code": "x"}), 400)
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM users`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d users after refused sign-ins (%v)", n, err)
	}
}

func TestSocialSignInLinksByVerifiedEmailOnly(t *testing.T) {
	e := newEnv(t)
	// A verified password account gains a Google identity and keeps its password.
	owner := e.register("link")
	e.verify(owner)
	r := e.must(e.do("POST", "/v1/auth/google", "", map[string]string{
		"id_token": e.google.Sign(e.google.Claims("g-3", owner.Email, true, e.clock.Now()))}), 200)
	if r.obj("user")["id"] != owner.ID {
		t.Fatal("not linked to the existing account")
	}
	e.must(e.login(owner.Email, testPassword, false), 200)
	e.must(e.do("GET", "/v1/auth/me", owner.Access, nil), 200)

	// An unverified account registered by someone else with the victim's
	// address: the provider-verified owner takes it over, and the squatter's
	// password and sessions stop working.
	squat := e.register("squat")
	r = e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": e.github.Code(socialtest.GitHubUser{
		ID: 77, Login: "victim", Emails: []socialtest.GitHubEmail{{Email: squat.Email, Primary: true, Verified: true}}})}), 200)
	if r.obj("user")["id"] != squat.ID || r.obj("user")["email_verified"] != true {
		t.Fatalf("github sign-in: %s", r.Raw)
	}
	e.must(e.do("GET", "/v1/auth/me", squat.Access, nil), 401)
	e.must(e.login(squat.Email, testPassword, false), 401)

	// GitHub without a verified primary address neither links nor creates.
	e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": e.github.Code(socialtest.GitHubUser{
		ID: 78, Login: "nomail", Emails: []socialtest.GitHubEmail{{Email: owner.Email, Primary: true}}})}), 401)
	e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": "code-never-issued"}), 401)
	e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": "c", "redirect_uri": "javascript:alert(1)"}), 422)
	e.must(e.do("POST", "/v1/auth/github", "", map[string]string{}), 422)
}

func TestGitHubSignInNewUserAndOutage(t *testing.T) {
	e := newEnv(t)
	code := e.github.Code(socialtest.GitHubUser{ID: 5, Login: "octo", Name: "Octo Cat",
		Emails: []socialtest.GitHubEmail{{Email: "octo@example.com", Primary: true, Verified: true}}})
	r := e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": code, "redirect_uri": "https://app.llmcost.test/cb"}), 200)
	if u := r.obj("user"); u["email"] != "octo@example.com" || u["name"] != "Octo Cat" {
		t.Fatalf("payload %s", r.Raw)
	}
	e.must(e.do("POST", "/v1/auth/github", "", map[string]string{"code": code}), 401) // codes are single use
	e.github.Down.Store(true)
	down := e.do("POST", "/v1/auth/github", "", map[string]string{"code": "any"})
	if down.Status != 503 || down.Header.Get("Retry-After") == "" {
		t.Fatalf("provider outage: %d %v %s", down.Status, down.Header, down.Raw)
	}
	// A server without the providers configured says so.
	d := e.deps(e.srv.Logger)
	d.Accounts.Google, d.Accounts.GitHub = nil, nil
	h := New(d).Handler()
	e.must(e.doAs(h, "POST", "/v1/auth/google", "", map[string]string{"id_token": "x"}), 404)
	e.must(e.doAs(h, "POST", "/v1/auth/github", "", map[string]string{"code": "x"}), 404)
}
