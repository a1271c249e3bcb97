package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

// A guard is the credential and permission a route needs, declared in the
// route table and checked before the handler runs. What it establishes
// about the caller reaches the handler through callerOf.
type guard struct {
	// Name says in words what the guard admits, for docs and tests.
	Name  string
	check func(s *Server, r *http.Request) (caller, error)
}

// caller is what a route's guard established.
type caller struct {
	UserID    string        // a session's user
	ProjectID string        // the project the request reaches
	User      postgres.User // the user, for guards that load it
}

type callerKey struct{}

// callerOf is what the route's guard established about the request.
func callerOf(r *http.Request) caller {
	c, _ := r.Context().Value(callerKey{}).(caller)
	return c
}

func principalOf(r *http.Request) *access.Principal { return access.FromContext(r.Context()) }

// public admits anyone, with or without credentials.
var public = guard{"anyone", func(*Server, *http.Request) (caller, error) { return caller{}, nil }}

// session admits a signed-in user.
var session = guard{"session", func(_ *Server, r *http.Request) (caller, error) {
	userID, err := principalOf(r).RequireSession()
	return caller{UserID: userID}, err
}}

// verifiedSession admits a signed-in user whose address is proven.
var verifiedSession = guard{"session with a proven e-mail", func(s *Server, r *http.Request) (caller, error) {
	u, err := s.verifiedUser(r)
	return caller{UserID: u.ID, User: u}, err
}}

// inviteeSession is verifiedSession on the path's project, whatever the caller's
// membership: accepting and declining decide that themselves.
var inviteeSession = guard{"session with a proven e-mail, any {project_id}", func(s *Server, r *http.Request) (caller, error) {
	u, err := s.verifiedUser(r)
	if err != nil {
		return caller{}, err
	}
	id, err := projectID(r)
	return caller{UserID: u.ID, User: u, ProjectID: id}, err
}}

// anyMember is a session on the path's project; the store decides whether
// the user belongs to it.
var anyMember = guard{"session, any {project_id}", func(_ *Server, r *http.Request) (caller, error) {
	userID, err := principalOf(r).RequireSession()
	if err != nil {
		return caller{}, err
	}
	id, err := projectID(r)
	return caller{UserID: userID, ProjectID: id}, err
}}

// deploymentAdmin admits a session of a deployment admin.
var deploymentAdmin = guard{"deployment admin session", func(s *Server, r *http.Request) (caller, error) {
	u, err := s.requireDeploymentAdmin(r)
	return caller{UserID: u.ID, User: u}, err
}}

// apiKey admits a project API key that grants perm.
func apiKey(perm access.Permission) guard {
	return guard{"API key with " + string(perm), func(_ *Server, r *http.Request) (caller, error) {
		projectID, err := principalOf(r).RequireAPIKey()
		if err == nil && !access.KeyHas(perm) {
			err = apierr.New(apierr.Forbidden, "an API key cannot do this; use a member session")
		}
		return caller{ProjectID: projectID}, err
	}}
}

// memberWith admits a session holding perm in the path's {project_id}.
func memberWith(perm access.Permission) guard {
	return guard{"member session with " + string(perm), func(s *Server, r *http.Request) (caller, error) {
		id, userID, err := s.sessionProject(r, perm)
		return caller{UserID: userID, ProjectID: id}, err
	}}
}

// memberOrKey is memberWith, or the project's own API key for a read.
func memberOrKey(perm access.Permission) guard {
	return guard{"member session with " + string(perm) + ", or the project's key for reads",
		func(s *Server, r *http.Request) (caller, error) {
			id, err := s.bearerProject(r, perm)
			return caller{UserID: principalOf(r).UserID, ProjectID: id}, err
		}}
}

// projectParam admits an API key (its own project) or a member session
// holding perm in the project_id query parameter.
func projectParam(perm access.Permission) guard {
	return guard{"API key, or member session with " + string(perm) + " in ?project_id",
		func(_ *Server, r *http.Request) (caller, error) {
			p := principalOf(r)
			id, err := p.Project(r.Context(), r.URL.Query().Get("project_id"), perm)
			return caller{UserID: p.UserID, ProjectID: id}, err
		}}
}

// requireDeploymentAdmin admits a session whose user's e-mail is listed in
// admin_emails (compared case-insensitively) and, when mail is configured,
// verified: no credentials is 401, an API key or anyone else is 403.
func (s *Server) requireDeploymentAdmin(r *http.Request) (postgres.User, error) {
	p := principalOf(r)
	if p.Kind == access.APIKey {
		return postgres.User{}, apierr.New(apierr.Forbidden, "an API key cannot do this; it needs a deployment admin's session")
	}
	userID, err := p.RequireSession()
	if err != nil {
		return postgres.User{}, err
	}
	user, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return user, err
	}
	for _, a := range s.AdminEmails {
		// Exact match of normalised forms: EqualFold would let the
		// Kelvin sign (U+212A) stand for "k" in an admin's address.
		if admin, ok := authn.NormalizeEmail(a); !ok || admin != user.Email {
			continue
		}
		// Registering does not prove owning the address: where mail can
		// prove it, an unverified account is not yet the admin it claims.
		if !s.addressProven(user) {
			return user, apierr.New(apierr.Forbidden, "verify your e-mail address before using admin operations").
				WithHint("follow the link in the verification e-mail, or POST /v1/auth/verify-email/resend")
		}
		return user, nil
	}
	return user, apierr.New(apierr.Forbidden, "only deployment admins may do this").
		WithHint("deployment admins are the e-mails listed in the server's admin_emails setting (LLMCOST_ADMIN_EMAILS)")
}
