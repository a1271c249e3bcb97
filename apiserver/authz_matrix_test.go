package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/gorilla/mux"
)

// The authorization matrix: every route under /v1/projects, called by
// every kind of caller, with the status each must get. Routes are read
// from the live route table, so a new route without an entry here fails
// TestAuthorizationMatrix, and so does an entry whose route is gone.

type principal string

const (
	owner    principal = "owner"
	admin    principal = "admin"
	member   principal = "member"
	viewer   principal = "viewer"
	invitee  principal = "invitee"   // invited, not yet accepted
	outsider principal = "outsider"  // owner of another project
	anon     principal = "anonymous" // no credentials
	key      principal = "api-key"   // the project's own API key
	otherKey principal = "other-key" // another project's API key
)

var principals = []principal{owner, admin, member, viewer, invitee, outsider, anon, key, otherKey}

type matrixEntry struct {
	body func() any
	want map[principal]int
}

func want(o, a, m, v, i, out, an, k, ok int) map[principal]int {
	return map[principal]int{owner: o, admin: a, member: m, viewer: v, invitee: i, outsider: out, anon: an, key: k, otherKey: ok}
}

var inviteSeq atomic.Int64

func newInvite() any {
	return map[string]string{"email": fmt.Sprintf("matrix%d@example.com", inviteSeq.Add(1)), "role": "viewer"}
}

// matrix is keyed by "METHOD template" exactly as routes.go registers it.
var matrix = map[string]matrixEntry{
	"POST /v1/projects":                             {func() any { return map[string]string{"name": "n"} }, want(201, 201, 201, 201, 201, 201, 401, 401, 401)},
	"GET /v1/projects":                              {nil, want(200, 200, 200, 200, 200, 200, 401, 401, 401)},
	"GET /v1/projects/me":                           {nil, want(401, 401, 401, 401, 401, 401, 401, 200, 200)},
	"GET /v1/projects/invitations/pending":          {nil, want(200, 200, 200, 200, 200, 200, 401, 401, 401)},
	"GET /v1/projects/{project_id}":                 {nil, want(200, 200, 200, 200, 404, 404, 401, 200, 404)},
	"PATCH /v1/projects/{project_id}":               {func() any { return map[string]string{"description": "d"} }, want(200, 200, 403, 403, 404, 404, 401, 403, 404)},
	"DELETE /v1/projects/{project_id}":              {nil, want(200, 200, 403, 403, 404, 404, 401, 403, 404)},
	"POST /v1/projects/{project_id}/api-key/rotate": {nil, want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	"GET /v1/projects/{project_id}/members":         {nil, want(200, 200, 200, 200, 404, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/members":        {newInvite, want(201, 201, 403, 403, 404, 404, 401, 401, 401)},
	"PATCH /v1/projects/{project_id}/members/{user_id}": {func() any { return map[string]string{"role": "viewer"} },
		want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	"DELETE /v1/projects/{project_id}/members/{user_id}": {nil, want(204, 204, 403, 403, 404, 404, 401, 401, 401)},
	// Accepting is idempotent for members; only the invitee has something to decline.
	"POST /v1/projects/{project_id}/invitations/accept":  {nil, want(200, 200, 200, 200, 200, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/invitations/decline": {nil, want(404, 404, 404, 404, 204, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/leave":               {nil, want(400, 204, 204, 204, 404, 404, 401, 401, 401)},
}

// projectRoutes lists "METHOD template" of every route under /v1/projects.
func projectRoutes(t *testing.T, s *Server) []string {
	var out []string
	err := s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := route.GetPathTemplate()
		if err != nil || (tpl != "/v1/projects" && !strings.HasPrefix(tpl, "/v1/projects/")) {
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil {
			t.Errorf("route %s has no method", tpl)
			return nil
		}
		for _, m := range methods {
			out = append(out, m+" "+tpl)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

type matrixEnv struct {
	*env
	users map[principal]user
}

// fixture is a fresh project of the owner with an accepted admin, member
// and viewer and a pending invitee; it returns the project id and key.
func (m *matrixEnv) fixture() (string, string) {
	o := m.users[owner]
	r := m.must(m.do("POST", "/v1/projects", o.Access, map[string]string{"name": "matrix"}), 201)
	id, k := r.str("id"), r.str("api_key")
	for _, p := range []principal{admin, member, viewer, invitee} {
		role := string(p)
		if p == invitee {
			role = "member"
		}
		m.must(m.do("POST", "/v1/projects/"+id+"/members", o.Access, map[string]string{"email": m.users[p].Email, "role": role}), 201)
		if p != invitee {
			m.must(m.do("POST", "/v1/projects/"+id+"/invitations/accept", m.users[p].Access, nil), 200)
		}
	}
	return id, k
}

func (m *matrixEnv) credential(p principal, projectKey string) string {
	switch p {
	case anon:
		return ""
	case key:
		return projectKey
	case otherKey:
		return m.users[outsider].Key
	}
	return m.users[p].Access
}

func fill(tpl, projectID, userID string) string {
	r := strings.NewReplacer("{id}", projectID, "{project_id}", projectID, "{user_id}", userID)
	return r.Replace(tpl)
}

func TestAuthorizationMatrix(t *testing.T) {
	m := &matrixEnv{env: newEnv(t), users: map[principal]user{}}
	for _, p := range []principal{owner, admin, member, viewer, invitee, outsider} {
		u := m.register(string(p))
		m.verify(u)
		m.users[p] = u
	}
	routes := projectRoutes(t, m.srv)
	for _, r := range routes {
		if _, ok := matrix[r]; !ok {
			t.Errorf("route %s has no entry in the authorization matrix (apiserver/authz_matrix_test.go): "+
				"add the status each caller must get", r)
		}
	}
	for r := range matrix {
		if !slices.Contains(routes, r) {
			t.Errorf("matrix entry %s names no route", r)
		}
	}
	sharedID, sharedKey := m.fixture()
	for _, r := range routes {
		entry, ok := matrix[r]
		if !ok {
			continue
		}
		method, tpl, _ := strings.Cut(r, " ")
		t.Run(r, func(t *testing.T) {
			for _, p := range principals {
				id, k := sharedID, sharedKey
				if method != http.MethodGet {
					id, k = m.fixture() // writes get a project of their own
				}
				var body any
				if entry.body != nil {
					body = entry.body()
				}
				got := m.do(method, fill(tpl, id, m.users[member].ID), m.credential(p, k), body)
				if got.Status != entry.want[p] {
					t.Errorf("%s: status %d, want %d: %s", p, got.Status, entry.want[p], got.Raw)
				}
				if p == outsider && got.Status == http.StatusNotFound {
					// Another project's resource looks exactly like a missing one.
					missing := m.do(method, fill(tpl, uuid.NewString(), m.users[member].ID), m.credential(p, k), body)
					if missing.Status != got.Status || missing.Raw != got.Raw {
						t.Errorf("another project's %s differs from a missing one: %s vs %s", r, got.Raw, missing.Raw)
					}
				}
			}
		})
	}
}
