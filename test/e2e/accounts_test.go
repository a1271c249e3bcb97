package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/social/socialtest"
)

// TestAccountWalk drives every /v1/auth endpoint of the built binary, with
// the statuses the spec lists, and then checks that no password, token or
// key it used shows up in the logs or in an error body.
func TestAccountWalk(t *testing.T) {
	a := startAccounts(t)

	cur := a.call("GET", "/v1/auth/policies/current", "", nil, http.StatusOK)
	if obj(cur, "terms")["version"] != "2026-01-01" || obj(cur, "privacy")["version"] != "2026-01-01" {
		t.Fatalf("policies %s", cur.Raw)
	}

	// Register: validation, then success with a real verification mail.
	reg := map[string]any{"email": "walker@example.com", "password": acctPassword, "name": "Walker",
		"accept_terms": true, "accept_privacy": true, "terms_version": "2026-01-01", "privacy_version": "2026-01-01"}
	for field, bad := range map[string]any{"accept_terms": false, "terms_version": "2020-01-01", "password": "short", "email": "nope"} {
		body := map[string]any{}
		for k, v := range reg {
			body[k] = v
		}
		body[field] = bad
		r := a.call("POST", "/v1/auth/register", "", body, http.StatusUnprocessableEntity)
		if !strings.HasPrefix(obj(r, "error")["message"].(string), field) {
			t.Errorf("register with bad %s: %s", field, r.Raw)
		}
	}
	r := a.call("POST", "/v1/auth/register", "", reg, http.StatusCreated)
	if r.Body["verification_email_sent"] != true || obj(r, "user")["email_verified"] != false || num(t, r.Body["expires_in"]) != 3600 {
		t.Fatalf("register %s", r.Raw)
	}
	w := acctUser{ID: obj(r, "user")["id"].(string), Email: "walker@example.com", Access: str(r, "access_token"),
		Refresh: str(r, "refresh_token"), Key: obj(r, "default_project")["api_key"].(string)}
	a.secret(w.Access, w.Refresh, w.Key)
	a.call("POST", "/v1/auth/register", "", reg, http.StatusUnprocessableEntity) // taken
	if me := a.call("GET", "/v1/auth/me", w.Access, nil, http.StatusOK); me.Body["email_verified"] != false {
		t.Fatalf("me %s", me.Raw)
	}
	a.verify(w, 1)
	a.call("GET", "/v1/auth/me", "", nil, http.StatusUnauthorized)

	// Login: the same refusal for a wrong password and an unknown address.
	a.call("POST", "/v1/auth/login", "", map[string]any{"email": w.Email}, http.StatusUnprocessableEntity)
	wrong := a.login(w.Email, "wrong password!", false, http.StatusUnauthorized)
	unknown := a.login("nobody@example.com", "wrong password!", false, http.StatusUnauthorized)
	if string(wrong.Raw) != string(unknown.Raw) || obj(wrong, "error")["code"] != "invalid_credentials" {
		t.Fatalf("login refusals differ: %s vs %s", wrong.Raw, unknown.Raw)
	}
	l := a.login(w.Email, acctPassword, true, http.StatusOK)
	if num(t, l.Body["expires_in"]) != 3600 || str(l, "token_type") != "bearer" || obj(l, "user")["email"] != w.Email {
		t.Fatalf("login %s", l.Raw)
	}

	// Profile, policies.
	if p := a.call("PATCH", "/v1/auth/me", l.Body["access_token"].(string), map[string]string{"name": "Walker W."}, http.StatusOK); str(p, "name") != "Walker W." {
		t.Fatalf("patch me %s", p.Raw)
	}
	a.call("PATCH", "/v1/auth/me", w.Access, map[string]any{"name": 1}, http.StatusUnprocessableEntity)
	st := a.call("GET", "/v1/auth/policies/status", w.Access, nil, http.StatusOK)
	if st.Body["requires_reacceptance"] != false {
		t.Fatalf("policy status %s", st.Raw)
	}
	a.call("GET", "/v1/auth/policies/status", "", nil, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/policies/accept", w.Access, []map[string]string{{"document": "terms", "version": "2026-01-01"}}, http.StatusOK)
	a.call("POST", "/v1/auth/policies/accept", w.Access, []map[string]string{{"document": "terms", "version": "1999"}}, http.StatusUnprocessableEntity)
	a.call("POST", "/v1/auth/policies/accept", "", []map[string]string{{"document": "terms", "version": "2026-01-01"}}, http.StatusUnauthorized)

	// Refresh rotates; a reused refresh token kills the pair it became.
	ref := a.call("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": str(l, "refresh_token")}, http.StatusOK)
	a.secret(str(ref, "access_token"), str(ref, "refresh_token"))
	if num(t, ref.Body["expires_in"]) != 3600 {
		t.Fatalf("refresh %s", ref.Raw)
	}
	a.call("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": str(l, "refresh_token")}, http.StatusUnauthorized)
	a.call("GET", "/v1/auth/me", str(ref, "access_token"), nil, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": str(ref, "refresh_token")}, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/refresh", "", map[string]string{}, http.StatusUnprocessableEntity)

	// Password change ends the other sessions, not the caller's.
	other := a.login(w.Email, acctPassword, false, http.StatusOK)
	const changed = "a changed passphrase"
	a.secret(changed)
	a.call("POST", "/v1/auth/password/change", w.Access, map[string]string{"current_password": "not it at all", "new_password": changed}, http.StatusUnprocessableEntity)
	a.call("POST", "/v1/auth/password/change", "", map[string]string{"current_password": acctPassword, "new_password": changed}, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/password/change", w.Access, map[string]string{"current_password": acctPassword, "new_password": changed}, http.StatusNoContent)
	a.call("GET", "/v1/auth/me", w.Access, nil, http.StatusOK)
	a.call("GET", "/v1/auth/me", str(other, "access_token"), nil, http.StatusUnauthorized)

	// Reset by mail: single use, ends every session.
	a.call("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": w.Email}, http.StatusNoContent)
	a.call("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": "ghost@example.com"}, http.StatusNoContent)
	a.call("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": "@"}, http.StatusUnprocessableEntity)
	token := a.smtp.Wait(t, w.Email, "Reset your llmcost password", 1).Token(t)
	const reset = "the reset passphrase"
	a.secret(token, reset)
	a.call("POST", "/v1/auth/password/reset", "", map[string]string{"token": token, "new_password": reset}, http.StatusNoContent)
	a.call("POST", "/v1/auth/password/reset", "", map[string]string{"token": token, "new_password": reset}, http.StatusUnprocessableEntity)
	a.call("GET", "/v1/auth/me", w.Access, nil, http.StatusUnauthorized)
	a.login(w.Email, changed, false, http.StatusUnauthorized)
	s1 := a.login(w.Email, reset, false, http.StatusOK)
	s2 := a.login(w.Email, reset, true, http.StatusOK)

	// Logout ends one session at once; logout-all ends the rest.
	a.call("POST", "/v1/auth/logout", str(s1, "access_token"), nil, http.StatusNoContent)
	a.call("GET", "/v1/auth/me", str(s1, "access_token"), nil, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/logout", str(s1, "access_token"), nil, http.StatusUnauthorized)
	a.call("GET", "/v1/auth/me", str(s2, "access_token"), nil, http.StatusOK)
	a.call("POST", "/v1/auth/verify-email/resend", str(s2, "access_token"), nil, http.StatusOK)
	a.call("POST", "/v1/auth/logout-all", str(s2, "access_token"), nil, http.StatusNoContent)
	a.call("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": str(s2, "refresh_token")}, http.StatusUnauthorized)
	a.call("POST", "/v1/auth/logout-all", "", nil, http.StatusUnauthorized)

	// Social sign-in against the local providers.
	idToken := a.google.Sign(a.google.Claims("g-walk", "gwalker@example.com", true, time.Now()))
	bad := a.google.Claims("g-walk", "gwalker@example.com", true, time.Now())
	bad["aud"] = "not-our-client"
	badToken := a.google.Sign(bad)
	a.secret(idToken, badToken)
	g := a.call("POST", "/v1/auth/google", "", map[string]string{"id_token": idToken}, http.StatusOK)
	a.secret(str(g, "access_token"), str(g, "refresh_token"))
	if obj(g, "user")["email"] != "gwalker@example.com" || num(t, g.Body["expires_in"]) != 3600 {
		t.Fatalf("google %s", g.Raw)
	}
	a.call("GET", "/v1/auth/me", str(g, "access_token"), nil, http.StatusOK)
	a.call("POST", "/v1/auth/google", "", map[string]string{"id_token": badToken}, http.StatusUnauthorized)
	code := a.github.Code(socialtest.GitHubUser{ID: 99, Login: "walker", Emails: []socialtest.GitHubEmail{
		{Email: w.Email, Primary: true, Verified: true}}})
	a.secret(code)
	gh := a.call("POST", "/v1/auth/github", "", map[string]string{"code": code}, http.StatusOK)
	a.secret(str(gh, "access_token"), str(gh, "refresh_token"))
	if obj(gh, "user")["id"] != w.ID {
		t.Fatalf("github did not link the verified account: %s", gh.Raw)
	}
	a.call("POST", "/v1/auth/github", "", map[string]string{"code": code}, http.StatusUnauthorized)

	a.checkNoSecrets()
}

// TestResetRequestLimit: the 4th request within the hour is 429, for an
// address with an account and for one without alike.
func TestResetRequestLimit(t *testing.T) {
	a := startAccounts(t)
	u := a.register("limit")
	for _, email := range []string{u.Email, "unknown@example.com"} {
		for i := 0; i < 3; i++ {
			a.call("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": email}, http.StatusNoContent)
		}
		r := a.call("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": email}, http.StatusTooManyRequests)
		if r.Header.Get("Retry-After") == "" || num(t, r.Body["limit"]) != 3 || num(t, r.Body["period"]) != 3600 || r.Body["retry_after"] == nil {
			t.Fatalf("%s: %v %s", email, r.Header, r.Raw)
		}
	}
	a.smtp.Wait(t, u.Email, "Reset your llmcost password", 3)
	time.Sleep(200 * time.Millisecond)
	if n := a.smtp.Count(u.Email, "Reset"); n != 3 {
		t.Fatalf("%d reset mails, want 3", n)
	}
}
