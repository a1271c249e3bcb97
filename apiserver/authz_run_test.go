package apiserver

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/apiserver/respond"
)

// tableRoutes lists "METHOD template" of every route of the table.
func tableRoutes(s *Server) []string {
	out := make([]string, 0, len(s.table))
	for _, rt := range s.table {
		out = append(out, rt.Method+" "+rt.Path)
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

func (m *matrixEnv) credential(p principal, projectKey string, fresh bool) string {
	switch p {
	case anon:
		return ""
	case key:
		return projectKey
	case otherKey:
		return m.users[outsider].Key
	}
	if fresh {
		return m.must(m.login(m.users[p].Email, testPassword, false), 200).str("access_token")
	}
	return m.users[p].Access
}

// relogin gives every user a new shared session, after a route that may
// have ended theirs.
func (m *matrixEnv) relogin() {
	for p, u := range m.users {
		u.Access = m.must(m.login(u.Email, testPassword, false), 200).str("access_token")
		m.users[p] = u
	}
}

func fill(tpl, projectID, userID string) string {
	r := strings.NewReplacer("{project_id}", projectID, "{user_id}", userID,
		"{version}", "no-such-version", "{model_name:.+}", "gpt-4o", "{dimension}", "model",
		"{agent_name:.+}", "no-such-agent", "{agent_name}", "no-such-agent", "{tool_name}", "no-such-tool", "{notification_id}", "00000000-0000-0000-0000-000000000000",
		"{trace_id}", "no-such-trace", "{file}", "app.css", "{provider}", "anthropic")
	return r.Replace(tpl)
}

// fillSlots puts a handler in every slot that answers 200 with the
// project the guard admitted, as the receiver would after it.
func fillSlots(t *testing.T, s *Server) {
	for name := range s.slots {
		release, err := s.Fill(name, func(w http.ResponseWriter, r *http.Request) error {
			return respond.JSON(w, http.StatusOK, map[string]string{"project_id": callerOf(r).ProjectID})
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
	}
}

func TestAuthorizationMatrix(t *testing.T) {
	m := &matrixEnv{env: newEnv(t), users: map[principal]user{}}
	for _, p := range []principal{owner, admin, member, viewer, invitee, outsider} {
		u := m.register(string(p))
		m.verify(u)
		m.users[p] = u
	}
	fillSlots(t, m.srv)
	routes := tableRoutes(m.srv)
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
		if entry, ok := matrix[r]; ok {
			t.Run(r, func(t *testing.T) { m.check(t, r, entry, sharedID, sharedKey) })
		}
	}
}

// check calls route r as every principal and compares the statuses.
func (m *matrixEnv) check(t *testing.T, r string, entry matrixEntry, sharedID, sharedKey string) {
	method, tpl, _ := strings.Cut(r, " ")
	tpl += entry.query
	perProject := strings.Contains(tpl, "{project_id}")
	for _, p := range principals {
		id, k := sharedID, sharedKey
		if perProject && method != http.MethodGet {
			id, k = m.fixture() // writes get a project of their own
		}
		var body any
		if entry.body != nil {
			body = entry.body()
		}
		cred := m.credential(p, k, entry.fresh)
		got := m.do(method, fill(tpl, id, m.users[member].ID), cred, body)
		if got.Status != entry.want[p] {
			t.Errorf("%s: status %d, want %d: %s", p, got.Status, entry.want[p], got.Raw)
		}
		if perProject && p == outsider && got.Status == http.StatusNotFound {
			// Another project's resource looks exactly like a missing one.
			missing := m.do(method, fill(tpl, uuid.NewString(), m.users[member].ID), cred, body)
			if missing.Status != got.Status || missing.Raw != got.Raw {
				t.Errorf("another project's %s differs from a missing one: %s vs %s", r, got.Raw, missing.Raw)
			}
		}
	}
	if entry.fresh {
		m.relogin()
	}
}
