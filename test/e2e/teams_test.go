package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestTeamWalk drives every project and team endpoint of the built binary
// across owner, admin, member, viewer, an outsider and anonymous callers.
func TestTeamWalk(t *testing.T) {
	a := startAccounts(t)
	o, ad, m, v, x := a.register("owner"), a.register("admin"), a.register("member"), a.register("viewer"), a.register("outsider")
	for _, u := range []acctUser{ad, m, v, x} {
		a.verify(u, 1)
	}

	c := a.call("POST", "/v1/projects", o.Access, map[string]string{"name": "Team", "description": "walk"}, http.StatusCreated)
	pid, key := str(c, "id"), str(c, "api_key")
	a.secret(key)
	if !strings.HasPrefix(key, "sk_") || str(c, "owner_id") != o.ID || str(c, "warning") == "" || !strings.HasPrefix(key, str(c, "key_prefix")) {
		t.Fatalf("create %s", c.Raw)
	}
	a.call("POST", "/v1/projects", o.Access, map[string]string{"name": ""}, http.StatusUnprocessableEntity)
	a.call("POST", "/v1/projects", "", map[string]string{"name": "x"}, http.StatusUnauthorized)
	base := "/v1/projects/" + pid

	for _, inv := range []struct {
		u    acctUser
		role string
	}{{ad, "admin"}, {m, "member"}, {v, "viewer"}} {
		r := a.call("POST", base+"/members", o.Access, map[string]string{"email": inv.u.Email, "role": inv.role}, http.StatusCreated)
		if str(r, "role") != inv.role || str(r, "membership_id") == "" || str(r, "message") == "" {
			t.Fatalf("invite %s", r.Raw)
		}
		a.smtp.Wait(t, inv.u.Email, "You are invited to the project Team", 1)
		p := a.call("GET", "/v1/projects/invitations/pending", inv.u.Access, nil, http.StatusOK)
		if num(t, p.Body["total"]) != 1 {
			t.Fatalf("pending %s", p.Raw)
		}
		acc := a.call("POST", base+"/invitations/accept", inv.u.Access, nil, http.StatusOK)
		if str(acc, "status") != "accepted" || str(acc, "role") != inv.role || str(acc, "project_id") != pid {
			t.Fatalf("accept %s", acc.Raw)
		}
	}
	// An invitee without an account registers later, confirms, accepts.
	a.call("POST", base+"/members", ad.Access, map[string]string{"email": "later@example.com", "role": "viewer"}, http.StatusCreated)
	a.call("POST", base+"/members", ad.Access, map[string]string{"email": "later@example.com", "role": "viewer"}, http.StatusUnprocessableEntity)
	mail := a.smtp.Wait(t, "later@example.com", "You are invited", 1)
	if !strings.Contains(mail.Body, base+"/invitations/accept") {
		t.Fatalf("invitation mail:\n%s", mail.Body)
	}
	lr := a.call("POST", "/v1/auth/register", "", map[string]any{"email": "later@example.com", "password": acctPassword,
		"accept_terms": true, "accept_privacy": true, "terms_version": "2026-01-01", "privacy_version": "2026-01-01"}, http.StatusCreated)
	later := acctUser{ID: obj(lr, "user")["id"].(string), Email: "later@example.com", Access: str(lr, "access_token")}
	a.secret(later.Access, str(lr, "refresh_token"), obj(lr, "default_project")["api_key"].(string))
	a.call("POST", base+"/invitations/accept", later.Access, nil, http.StatusForbidden) // address not confirmed yet
	a.verify(later, 1)
	a.call("POST", base+"/invitations/accept", later.Access, nil, http.StatusOK)

	mem := a.call("GET", base+"/members", v.Access, nil, http.StatusOK)
	if num(t, mem.Body["total"]) != 5 {
		t.Fatalf("members %s", mem.Raw)
	}
	list := a.call("GET", "/v1/projects", m.Access, nil, http.StatusOK)
	if num(t, list.Body["total"]) != 2 || !strings.Contains(string(list.Raw), `"role":"member"`) {
		t.Fatalf("member's projects %s", list.Raw)
	}

	// Reads never return the key.
	for _, r := range []response{a.call("GET", base, m.Access, nil, http.StatusOK), a.call("GET", base, key, nil, http.StatusOK),
		a.call("GET", "/v1/projects/me", key, nil, http.StatusOK)} {
		if r.Body["api_key"] != nil || r.Body["key_prefix"] != nil || strings.Contains(string(r.Raw), key) {
			t.Fatalf("a read returned the key: %s", r.Raw)
		}
	}

	// Isolation: another project's resources are 404 to a session and 403
	// to its key, viewer writes 403, anonymous 401.
	a.call("GET", base, x.Access, nil, http.StatusNotFound)
	a.call("GET", base, x.Key, nil, http.StatusForbidden)
	a.call("PATCH", base, x.Access, map[string]string{"name": "mine"}, http.StatusNotFound)
	a.call("GET", base+"/members", x.Access, nil, http.StatusNotFound)
	a.call("DELETE", base, x.Access, nil, http.StatusNotFound)
	a.call("PATCH", base, v.Access, map[string]string{"name": "viewer"}, http.StatusForbidden)
	a.call("POST", base+"/api-key/rotate", v.Access, nil, http.StatusForbidden)
	a.call("POST", base+"/members", m.Access, map[string]string{"email": "y@example.com", "role": "viewer"}, http.StatusForbidden)
	a.call("DELETE", base, m.Access, nil, http.StatusForbidden)
	a.call("PATCH", base, key, map[string]string{"name": "key"}, http.StatusForbidden)
	a.call("GET", base, "", nil, http.StatusUnauthorized)
	a.call("GET", base+"/members", "", nil, http.StatusUnauthorized)

	// Update, roles, removal, leaving.
	up := a.call("PATCH", base, ad.Access, map[string]any{"name": "Team 2", "description": "d", "is_active": false}, http.StatusOK)
	if str(up, "name") != "Team 2" || up.Body["is_active"] != false {
		t.Fatalf("update %s", up.Raw)
	}
	ch := a.call("PATCH", base+"/members/"+m.ID, ad.Access, map[string]string{"role": "viewer"}, http.StatusOK)
	if str(ch, "status") != "updated" || str(ch, "new_role") != "viewer" {
		t.Fatalf("change role %s", ch.Raw)
	}
	a.call("PATCH", base+"/members/"+o.ID, ad.Access, map[string]string{"role": "member"}, http.StatusBadRequest)
	a.call("DELETE", base+"/members/"+o.ID, ad.Access, nil, http.StatusBadRequest)
	a.call("DELETE", base+"/members/"+later.ID, ad.Access, nil, http.StatusNoContent)
	a.call("GET", base, later.Access, nil, http.StatusNotFound)
	a.call("POST", base+"/leave", v.Access, nil, http.StatusNoContent)
	a.call("GET", base, v.Access, nil, http.StatusNotFound)
	leave := a.call("POST", base+"/leave", o.Access, nil, http.StatusBadRequest)
	if obj(leave, "error")["hint"] == nil {
		t.Fatalf("owner leave without a hint: %s", leave.Raw)
	}
	a.call("POST", base+"/members", o.Access, map[string]string{"email": x.Email, "role": "viewer"}, http.StatusCreated)
	a.call("POST", base+"/invitations/decline", x.Access, nil, http.StatusNoContent)
	a.call("POST", base+"/invitations/decline", x.Access, nil, http.StatusNotFound)
	a.call("GET", base, x.Access, nil, http.StatusNotFound)

	// Rotation: the old key fails at once; delete takes the events along.
	rot := a.call("POST", base+"/api-key/rotate", ad.Access, nil, http.StatusOK)
	newKey := str(rot, "api_key")
	a.secret(newKey)
	if str(rot, "status") != "rotated" || !strings.HasPrefix(newKey, "sk_") || newKey == key {
		t.Fatalf("rotate %s", rot.Raw)
	}
	a.call("GET", "/v1/projects/me", key, nil, http.StatusUnauthorized)
	a.call("POST", "/v1/events/batch", newKey, map[string]any{"events": []any{ev("t1", "gpt-4o", 10, 2, nil)}}, http.StatusOK)
	if len(a.s.listed(t, newKey)) != 1 {
		t.Fatal("event not stored")
	}
	a.call("DELETE", base, m.Access, nil, http.StatusForbidden) // a viewer now
	del := a.call("DELETE", base, o.Access, nil, http.StatusOK)
	if str(del, "status") != "deleted" || str(del, "project_id") != pid {
		t.Fatalf("delete %s", del.Raw)
	}
	a.call("GET", base, o.Access, nil, http.StatusNotFound)
	a.call("GET", "/v1/projects/me", newKey, nil, http.StatusUnauthorized)
	a.call("GET", "/v1/events", newKey, nil, http.StatusUnauthorized)

	a.checkNoSecrets()
}
