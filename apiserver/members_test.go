package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestInvitationLifecycle(t *testing.T) {
	e := newEnv(t)
	o := e.register("own")
	base := "/v1/projects/" + o.ProjectID
	// The invitee has no account yet.
	inv := e.must(e.do("POST", base+"/members", o.Access, map[string]string{"email": "Newbie@Example.com", "role": "member"}), 201)
	if inv.str("role") != "member" || inv.str("membership_id") == "" || !strings.Contains(inv.str("message"), "newbie@example.com") {
		t.Fatalf("invite reply %s", inv.Raw)
	}
	mailed := e.smtp.Wait(t, "newbie@example.com", "You are invited", 1)
	if !strings.Contains(mailed.Body, "/v1/projects/"+o.ProjectID+"/invitations/accept") {
		t.Fatalf("invitation mail:\n%s", mailed.Body)
	}
	members := e.must(e.do("GET", base+"/members", o.Access, nil), 200)
	if members.Body["total"] != float64(2) {
		t.Fatalf("members %s", members.Raw)
	}
	pending := members.Body["members"].([]any)[1].(map[string]any)
	if pending["is_pending"] != true || pending["user_id"] != nil || pending["accepted_at"] != nil || pending["email"] != "newbie@example.com" {
		t.Fatalf("pending member %v", pending)
	}
	first := members.Body["members"].([]any)[0].(map[string]any)
	if first["is_owner"] != true || first["role"] != "admin" || first["is_pending"] != false || first["user_id"] != o.ID {
		t.Fatalf("owner member %v", first)
	}
	for body, status := range map[string]int{
		`{"email":"newbie@example.com","role":"member"}`:  422, // already invited
		`{"email":"` + o.Email + `","role":"viewer"}`:     422, // already a member
		`{"email":"x@example.com","role":"owner"}`:        422,
		`{"email":"not-an-address","role":"viewer"}`:      422,
		`{"email":"x@example.com"}`:                       422,
		`{"email":"x@example.com","role":"viewer","x":1}`: 400,
	} {
		e.must(e.do("POST", base+"/members", o.Access, body), status)
	}

	// Registering links the invitation; answering it needs a verified address.
	n := e.do("POST", "/v1/auth/register", "", map[string]any{"email": "newbie@example.com", "password": testPassword, "name": "Newbie",
		"accept_terms": true, "accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy})
	nu := user{ID: n.obj("user")["id"].(string), Email: "newbie@example.com", Access: n.str("access_token")}
	e.must(e.do("GET", "/v1/projects/invitations/pending", nu.Access, nil), 403)
	e.must(e.do("POST", base+"/invitations/accept", nu.Access, nil), 403)
	e.verify(nu)
	p := e.must(e.do("GET", "/v1/projects/invitations/pending", nu.Access, nil), 200)
	item := p.Body["invitations"].([]any)[0].(map[string]any)
	if p.Body["total"] != float64(1) || item["project_id"] != o.ProjectID || item["project_name"] != "Default project" ||
		item["role"] != "member" || item["invited_by"].(map[string]any)["email"] != o.Email || item["invited_at"] == nil {
		t.Fatalf("pending %s", p.Raw)
	}
	e.must(e.do("GET", base, nu.Access, nil), 404) // pending is not access
	acc := e.must(e.do("POST", base+"/invitations/accept", nu.Access, nil), 200)
	if acc.str("status") != "accepted" || acc.str("project_id") != o.ProjectID || acc.str("role") != "member" {
		t.Fatalf("accept %s", acc.Raw)
	}
	if g := e.must(e.do("GET", base, nu.Access, nil), 200); g.str("role") != "member" || g.Body["api_key"] != nil || g.Body["key_prefix"] != nil {
		t.Fatalf("project as member %s", g.Raw)
	}
	if l := e.must(e.do("GET", "/v1/projects", nu.Access, nil), 200); l.Body["total"] != float64(2) {
		t.Fatalf("member's projects %s", l.Raw)
	}

	// Roles change; the owner is never demoted, removed, or allowed to leave.
	ch := e.must(e.do("PATCH", base+"/members/"+nu.ID, o.Access, map[string]string{"role": "viewer"}), 200)
	if ch.str("status") != "updated" || ch.str("new_role") != "viewer" {
		t.Fatalf("change role %s", ch.Raw)
	}
	e.must(e.do("PATCH", base, nu.Access, map[string]string{"name": "mine"}), 403)
	e.must(e.do("PATCH", base+"/members/"+nu.ID, o.Access, map[string]string{"role": "boss"}), 422)
	e.must(e.do("PATCH", base+"/members/"+o.ID, o.Access, map[string]string{"role": "viewer"}), 400)
	e.must(e.do("DELETE", base+"/members/"+o.ID, o.Access, nil), 400)
	e.must(e.do("PATCH", base+"/members/not-a-uuid", o.Access, map[string]string{"role": "viewer"}), 404)
	leave := e.must(e.do("POST", base+"/leave", o.Access, nil), 400)
	if !strings.Contains(leave.obj("error")["hint"].(string), "delete the project") {
		t.Fatalf("owner leave %s", leave.Raw)
	}
	e.must(e.do("PATCH", base+"/members/"+nu.ID, o.Access, map[string]string{"role": "admin"}), 200)
	// The new admin may not demote the owner either.
	e.must(e.do("PATCH", base+"/members/"+o.ID, nu.Access, map[string]string{"role": "member"}), 400)
	e.must(e.do("POST", base+"/leave", nu.Access, nil), 204)
	e.must(e.do("GET", base, nu.Access, nil), 404)
	e.must(e.do("POST", base+"/leave", nu.Access, nil), 404)

	// A pending invitation without an account is removed by its membership id.
	ghost := e.must(e.do("POST", base+"/members", o.Access, map[string]string{"email": "ghost@example.com", "role": "viewer"}), 201)
	e.must(e.do("DELETE", base+"/members/"+ghost.str("membership_id"), o.Access, nil), 204)
	if m := e.must(e.do("GET", base+"/members", o.Access, nil), 200); strings.Contains(m.Raw, "ghost@") {
		t.Fatalf("removed invitation still listed: %s", m.Raw)
	}
}

func TestDeclineAndExpiry(t *testing.T) {
	e := newEnv(t)
	o, x := e.register("own"), e.register("x")
	e.verify(x)
	base := "/v1/projects/" + o.ProjectID
	e.must(e.do("POST", base+"/members", o.Access, map[string]string{"email": x.Email, "role": "viewer"}), 201)
	e.must(e.do("POST", base+"/invitations/decline", x.Access, nil), 204)
	e.must(e.do("POST", base+"/invitations/decline", x.Access, nil), 404)
	e.must(e.do("POST", base+"/invitations/accept", x.Access, nil), 404)
	// A declined invitation can be sent again; it lives seven days.
	e.must(e.do("POST", base+"/members", o.Access, map[string]string{"email": x.Email, "role": "viewer"}), 201)
	e.clock.Advance(InvitationTTL + time.Second)
	o.Access = e.must(e.login(o.Email, testPassword, false), 200).str("access_token") // sessions ended too
	x.Access = e.must(e.login(x.Email, testPassword, false), 200).str("access_token")
	if p := e.must(e.do("GET", "/v1/projects/invitations/pending", x.Access, nil), 200); p.Body["total"] != float64(0) {
		t.Fatalf("expired invitation listed: %s", p.Raw)
	}
	e.must(e.do("POST", base+"/invitations/accept", x.Access, nil), 404)
	if m := e.must(e.do("GET", base+"/members", o.Access, nil), 200); m.Body["total"] != float64(1) {
		t.Fatalf("expired invitation among members: %s", m.Raw)
	}
	// Re-inviting renews it.
	e.must(e.do("POST", base+"/members", o.Access, map[string]string{"email": x.Email, "role": "member"}), 201)
	if a := e.must(e.do("POST", base+"/invitations/accept", x.Access, nil), 200); a.str("role") != "member" {
		t.Fatalf("renewed invitation %s", a.Raw)
	}
}

func TestProjectUpdateRotateDelete(t *testing.T) {
	e := newEnv(t)
	o := e.register("proj")
	base := "/v1/projects/" + o.ProjectID
	u := e.must(e.do("PATCH", base, o.Access, map[string]any{"name": " Renamed ", "description": "about", "is_active": false}), 200)
	if u.str("name") != "Renamed" || u.str("description") != "about" || u.Body["is_active"] != false || u.Body["api_key"] != nil {
		t.Fatalf("update %s", u.Raw)
	}
	e.must(e.do("PATCH", base, o.Access, map[string]any{"name": ""}), 422)
	e.must(e.do("PATCH", base, o.Access, map[string]any{"is_active": "yes"}), 422)
	e.must(e.do("PATCH", base, o.Access, map[string]any{"description": strings.Repeat("d", 2001)}), 422)
	g := e.must(e.do("GET", base, o.Access, nil), 200)
	if g.str("name") != "Renamed" || g.Body["is_active"] != false || g.str("role") != "admin" || g.Body["is_owner"] != true {
		t.Fatalf("after refused updates %s", g.Raw)
	}
	e.must(e.do("PATCH", base, o.Access, map[string]any{"is_active": true}), 200)

	// Rotation: the new key works, the old one fails at once.
	e.must(e.do("GET", "/v1/projects/me", o.Key, nil), 200)
	rot := e.must(e.do("POST", base+"/api-key/rotate", o.Access, nil), 200)
	newKey := rot.str("api_key")
	if rot.str("status") != "rotated" || rot.str("project_id") != o.ProjectID || !strings.HasPrefix(newKey, "sk_") ||
		!strings.HasPrefix(newKey, rot.str("key_prefix")) || rot.str("message") == "" {
		t.Fatalf("rotate %s", rot.Raw)
	}
	e.must(e.do("GET", "/v1/projects/me", o.Key, nil), 401)
	if me := e.must(e.do("GET", "/v1/projects/me", newKey, nil), 200); me.Body["api_key"] != nil || me.Body["key_prefix"] != nil {
		t.Fatalf("a read returned the key: %s", me.Raw)
	}
	var stored int
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM projects
		WHERE position(convert_to($1, 'UTF8') in key_hash) > 0 OR key_prefix = $1`, newKey).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("the key is stored in clear (%d rows, %v)", stored, err)
	}

	// Delete removes the project's events with it.
	if _, err := e.db.Pool.Exec(context.Background(), `INSERT INTO events (project_id, event_id, ts, agent_name, model,
		input_tokens, output_tokens, total_tokens, cost_nano, priced) VALUES ($1, 'e1', now(), 'a', 'm', 1, 1, 2, 0, false)`, o.ProjectID); err != nil {
		t.Fatal(err)
	}
	d := e.must(e.do("DELETE", base, o.Access, nil), 200)
	if d.str("status") != "deleted" || d.str("project_id") != o.ProjectID {
		t.Fatalf("delete %s", d.Raw)
	}
	e.must(e.do("GET", base, o.Access, nil), 404)
	e.must(e.do("DELETE", base, o.Access, nil), 404)
	e.must(e.do("GET", "/v1/projects/me", newKey, nil), 401)
	var events int
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE project_id = $1`, o.ProjectID).Scan(&events); err != nil || events != 0 {
		t.Fatalf("%d events left after delete (%v)", events, err)
	}
	if l := e.must(e.do("GET", "/v1/projects", o.Access, nil), 200); l.Body["total"] != float64(0) {
		t.Fatalf("projects after delete %s", l.Raw)
	}
}
