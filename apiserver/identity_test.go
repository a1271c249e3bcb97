package apiserver

import (
	"net/http"
	"strings"
	"testing"
)

func registerBody(email, name string) map[string]any {
	return map[string]any{"email": email, "password": testPassword, "name": name, "accept_terms": true,
		"accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy}
}

// The Kelvin sign (U+212A) folds to "k" under Unicode case folding; it must
// not claim, sign in as or reset the ASCII address's account.
func TestKelvinSignIsAnotherAddress(t *testing.T) {
	e := newEnv(t)
	ascii := "kelvin-" + strings.ToLower(t.Name()) + "@example.com"
	kelvin := "\u212A" + ascii[1:]
	e.must(e.do("POST", "/v1/auth/register", "", registerBody(ascii, "ASCII")), http.StatusCreated)
	if r := e.login(kelvin, testPassword, false); r.Status != http.StatusUnauthorized {
		t.Fatalf("the Kelvin address signs in to the ASCII account: %d %s", r.Status, r.Raw)
	}
	r := e.must(e.do("POST", "/v1/auth/register", "", registerBody(kelvin, "Kelvin")), http.StatusCreated)
	if got := r.obj("user")["email"]; got != kelvin {
		t.Fatalf("stored as %q", got)
	}
	e.must(e.login(strings.ToUpper(ascii[:6])+ascii[6:], testPassword, false), http.StatusOK)
}

// NUL in a name or e-mail is a 422 naming the field; at login, a 401.
func TestNULIsRefusedNamingTheField(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		body  map[string]any
		field string
	}{
		{registerBody("nul1@example.com", "Da\x00na"), "name"},
		{registerBody("nu\x00l2@example.com", "Dana"), "email"},
	}
	for _, c := range cases {
		r := e.must(e.do("POST", "/v1/auth/register", "", c.body), http.StatusUnprocessableEntity)
		if !strings.Contains(r.Raw, `"`+c.field+``) || !strings.Contains(r.Raw, "NUL") {
			t.Errorf("%s: %s", c.field, r.Raw)
		}
	}
	u := e.register("nul")
	e.must(e.do("PATCH", "/v1/auth/me", u.Access, map[string]any{"name": "a\x00"}), http.StatusUnprocessableEntity)
	e.must(e.do("POST", "/v1/projects", u.Access, map[string]any{"name": "p\x00"}), http.StatusUnprocessableEntity)
	e.must(e.login(u.Email+"\x00", testPassword, false), http.StatusUnauthorized)
	e.must(e.login(u.Email, testPassword+"\x00", false), http.StatusUnauthorized)
}

// A project's UUID in upper case names the same project: for its API key
// (path and query) and for a member's session.
func TestProjectUUIDInAnyCase(t *testing.T) {
	e := newEnv(t)
	u := e.register("uuidcase")
	upper := strings.ToUpper(u.ProjectID)
	e.must(e.do("GET", "/v1/projects/"+upper, u.Key, nil), http.StatusOK)
	e.must(e.do("GET", "/v1/projects/"+upper, u.Access, nil), http.StatusOK)
	e.must(e.do("GET", "/v1/events?project_id="+upper, u.Key, nil), http.StatusOK)
	e.must(e.do("GET", "/v1/events?project_id="+upper, u.Access, nil), http.StatusOK)
}
