package apiserver

import (
	"context"
	"strings"
	"testing"
)

func TestPoliciesCurrentStatusAndAccept(t *testing.T) {
	e := newEnv(t)
	cur := e.must(e.do("GET", "/v1/auth/policies/current", "", nil), 200)
	if cur.obj("terms")["version"] != testPolicy || cur.obj("privacy")["url"] != "/legal/privacy" {
		t.Fatalf("current %s", cur.Raw)
	}
	u := e.register("pol")
	st := e.must(e.do("GET", "/v1/auth/policies/status", u.Access, nil), 200)
	if st.Body["requires_reacceptance"] != false || len(st.Body["outdated"].([]any)) != 0 || st.obj("accepted")["terms"] != testPolicy {
		t.Fatalf("status after register %s", st.Raw)
	}
	e.must(e.do("GET", "/v1/auth/policies/status", "", nil), 401)

	// New terms are published: the user must accept again.
	d := e.deps(e.srv.Logger)
	d.Policies.TermsVersion = "2027-01-01"
	h := New(d).Handler()
	st = e.must(e.doAs(h, "GET", "/v1/auth/policies/status", u.Access, nil), 200)
	if st.Body["requires_reacceptance"] != true || st.Body["outdated"].([]any)[0] != "terms" ||
		st.obj("current")["terms"] != "2027-01-01" || st.obj("accepted")["terms"] != testPolicy {
		t.Fatalf("status after new terms %s", st.Raw)
	}
	for body, field := range map[string]string{
		`[{"document":"terms","version":"2026-01-01"}]`:                                        "[0].version",
		`[{"document":"privacy","version":"2026-01-01"},{"document":"cookies","version":"1"}]`: "[1].document",
		`[]`: "body",
	} {
		r := e.must(e.doAs(h, "POST", "/v1/auth/policies/accept", u.Access, body), 422)
		if msg, _ := r.obj("error")["message"].(string); len(msg) < len(field) || msg[:len(field)] != field {
			t.Errorf("%s: error does not name %s: %s", body, field, r.Raw)
		}
	}
	for _, body := range []string{`{"document":"terms"}`, `[{"document":1,"version":"2027-01-01"}]`, `null`} {
		r := e.must(e.doAs(h, "POST", "/v1/auth/policies/accept", u.Access, body), 422)
		if strings.Contains(r.Raw, "apiserver.") || strings.Contains(r.Raw, "wire.") || strings.Contains(r.Raw, "consentItem") {
			t.Errorf("%s: the error names Go types: %s", body, r.Raw)
		}
	}
	e.must(e.doAs(h, "POST", "/v1/auth/policies/accept", u.Access, `[{"document":"terms","version":"2027-01-01","x":1}]`), 400)
	e.must(e.doAs(h, "POST", "/v1/auth/policies/accept", "", `[{"document":"terms","version":"2027-01-01"}]`), 401)
	st = e.must(e.doAs(h, "POST", "/v1/auth/policies/accept", u.Access, `[{"document":"terms","version":"2027-01-01"}]`), 200)
	if st.Body["requires_reacceptance"] != false || st.obj("accepted")["terms"] != "2027-01-01" {
		t.Fatalf("after accept %s", st.Raw)
	}
	var ip, ua string
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT ip, user_agent FROM consents
		WHERE user_id = $1 AND document = 'terms' AND version = '2027-01-01'`, u.ID).Scan(&ip, &ua); err != nil || ip == "" || ua != "apiserver-test" {
		t.Fatalf("consent record ip=%q ua=%q err=%v", ip, ua, err)
	}
}
