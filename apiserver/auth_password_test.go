package apiserver

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordChangeNeedsCurrentAndEndsOtherSessions(t *testing.T) {
	e := newEnv(t)
	u := e.register("chg")
	other := e.must(e.login(u.Email, testPassword, false), 200)
	const next = "a brand new passphrase"
	for _, c := range []struct {
		body  map[string]string
		field string
	}{
		{map[string]string{"new_password": next}, "current_password"},
		{map[string]string{"current_password": "wrong password", "new_password": next}, "current_password"},
		{map[string]string{"current_password": testPassword, "new_password": "short"}, "new_password"},
		{map[string]string{"current_password": testPassword, "new_password": strings.Repeat("x", 129)}, "new_password"},
	} {
		r := e.must(e.do("POST", "/v1/auth/password/change", u.Access, c.body), 422)
		if !strings.HasPrefix(r.obj("error")["message"].(string), c.field+":") {
			t.Errorf("%v: error does not name %s: %s", c.body, c.field, r.Raw)
		}
	}
	// Nothing was changed by the refused attempts.
	e.must(e.do("GET", "/v1/auth/me", other.str("access_token"), nil), 200)
	e.must(e.login(u.Email, testPassword, false), 200)

	e.must(e.do("POST", "/v1/auth/password/change", "", map[string]string{"current_password": testPassword, "new_password": next}), 401)
	e.must(e.do("POST", "/v1/auth/password/change", u.Access, map[string]string{"current_password": testPassword, "new_password": next}), 204)
	e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200) // the caller's own session stays
	e.must(e.do("GET", "/v1/auth/me", other.str("access_token"), nil), 401)
	e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": other.str("refresh_token")}), 401)
	e.must(e.login(u.Email, testPassword, false), 401)
	e.must(e.login(u.Email, next, false), 200)
	// 128 characters of Unicode are accepted and verified exactly.
	long := strings.Repeat("é", 128)
	e.must(e.do("POST", "/v1/auth/password/change", u.Access, map[string]string{"current_password": next, "new_password": long}), 204)
	e.must(e.login(u.Email, long, false), 200)
	e.must(e.login(u.Email, long[:len(long)-2], false), 401)
}

func TestPasswordResetByMail(t *testing.T) {
	e := newEnv(t)
	u := e.register("reset")
	second := e.must(e.login(u.Email, testPassword, true), 200)
	e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": strings.ToUpper(u.Email)}), 204)
	m := e.smtp.Wait(t, u.Email, "Reset your llmcost password", 1)
	token := m.Token(t)
	if !strings.Contains(m.Body, "https://app.llmcost.test/reset-password?token="+token) {
		t.Fatalf("mail body:\n%s", m.Body)
	}
	const next = "reset to this one"
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"token": token, "new_password": "short"}), 422)
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"token": "lcp_nope", "new_password": next}), 422)
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"new_password": next}), 422)
	e.must(e.login(u.Email, testPassword, false), 200) // nothing changed yet
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"token": token, "new_password": next}), 204)
	for _, tok := range []string{u.Access, second.str("access_token")} {
		e.must(e.do("GET", "/v1/auth/me", tok, nil), 401)
	}
	e.must(e.login(u.Email, testPassword, false), 401)
	r := e.must(e.login(u.Email, next, false), 200)
	// Single use; and the mail proved the address.
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"token": token, "new_password": "another one!"}), 422)
	if e.must(e.do("GET", "/v1/auth/me", r.str("access_token"), nil), 200).Body["email_verified"] != true {
		t.Error("a completed reset did not mark the address verified")
	}

	// A token expires after one hour.
	e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": u.Email}), 204)
	late := e.smtp.Wait(t, u.Email, "Reset your llmcost password", 2).Token(t)
	e.clock.Advance(time.Hour)
	e.must(e.do("POST", "/v1/auth/password/reset", "", map[string]string{"token": late, "new_password": "too late now"}), 422)
}

func TestResetRequestsAreLimitedPerAddressKnownOrNot(t *testing.T) {
	e := newEnv(t)
	u := e.register("limit")
	for _, email := range []string{u.Email, "nobody@example.com"} {
		for i := 0; i < 3; i++ {
			r := e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": email}), 204)
			if r.Raw != "" {
				t.Fatalf("204 with a body: %q", r.Raw)
			}
			e.clock.Advance(time.Minute)
		}
		// Case and surrounding spaces do not make a new address.
		r := e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": " " + strings.ToUpper(email) + " "}), 429)
		if r.Header.Get("Retry-After") == "" || r.Body["retry_after"] == nil || r.Body["limit"] != float64(3) ||
			r.Body["period"] != float64(3600) || r.str("detail") == "" {
			t.Fatalf("%s: 429 %v %s", email, r.Header, r.Raw)
		}
	}
	e.srv.Drain(t.Context())
	if n := e.smtp.Count(u.Email, "Reset"); n != 3 {
		t.Errorf("%d reset mails for the known address, want 3", n)
	}
	if n := len(e.smtp.Messages()); n != 4 { // 3 resets + the verification mail
		t.Errorf("%d mails in all, want 4", n)
	}
	// An hour after the first request, one slot frees up.
	e.clock.Advance(time.Hour - 6*time.Minute) // exactly one hour after the first
	e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": u.Email}), 204)
	e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": u.Email}), 429)
	e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": "not an address"}), 422)
}

func TestEmailVerification(t *testing.T) {
	e := newEnv(t)
	u := e.register("ver")
	m := e.smtp.Wait(t, u.Email, "Confirm your e-mail", 1)
	token := m.Token(t)
	e.must(e.do("POST", "/v1/auth/verify-email", "", map[string]string{"token": "lcv_bogus"}), 422)
	r := e.must(e.do("POST", "/v1/auth/verify-email", "", map[string]string{"token": token}), 200)
	if r.Body["email_verified"] != true || r.str("email") != u.Email || r.str("id") != u.ID {
		t.Fatalf("verify reply %s", r.Raw)
	}
	e.must(e.do("POST", "/v1/auth/verify-email", "", map[string]string{"token": token}), 422)
	if e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200).Body["email_verified"] != true {
		t.Fatal("profile not verified")
	}
	r = e.must(e.do("POST", "/v1/auth/verify-email/resend", u.Access, nil), 200)
	if r.Body["email_verified"] != true || r.Body["verification_email_sent"] != false {
		t.Fatalf("resend for a verified user: %s", r.Raw)
	}

	// A second user: resend works three times an hour; tokens last 24 hours.
	v := e.register("ver")
	for i := 0; i < 3; i++ {
		if r := e.must(e.do("POST", "/v1/auth/verify-email/resend", v.Access, nil), 200); r.Body["verification_email_sent"] != true {
			t.Fatalf("resend %d: %s", i, r.Raw)
		}
	}
	e.must(e.do("POST", "/v1/auth/verify-email/resend", v.Access, nil), 429)
	last := e.smtp.Wait(t, v.Email, "Confirm your e-mail", 4).Token(t)
	e.clock.Advance(24 * time.Hour)
	e.must(e.do("POST", "/v1/auth/verify-email", "", map[string]string{"token": last}), 422)
}

func TestWithoutMailerNothingIsSentAndRegisterSaysSo(t *testing.T) {
	e := newEnv(t)
	d := e.deps(e.srv.Logger)
	d.Accounts.Mailer = nil
	h := New(d).Handler()
	r := e.doAs(h, "POST", "/v1/auth/register", "", map[string]any{"email": "nomail@example.com", "password": testPassword,
		"accept_terms": true, "accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy})
	if r.Status != 201 || r.Body["verification_email_sent"] != false {
		t.Fatalf("register without mailer: %d %s", r.Status, r.Raw)
	}
	e.must(e.doAs(h, "POST", "/v1/auth/password/reset-request", "", map[string]string{"email": "nomail@example.com"}), 204)
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d mails sent without a mailer", n)
	}
	if e.logs.FilterMessage("e-mail not sent: no SMTP server is configured").Len() == 0 {
		t.Fatal("the unsent mail was not logged")
	}
	// With a mailer, register reports the mail.
	if r := e.do("POST", "/v1/auth/register", "", map[string]any{"email": "mail@example.com", "password": testPassword,
		"accept_terms": true, "accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy}); r.Body["verification_email_sent"] != true {
		t.Fatalf("register with mailer: %s", r.Raw)
	}
}
