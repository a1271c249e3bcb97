// Package access is the request's credential: who is calling (an API key's
// project, a session's user, or nobody), the roles and permissions
// (docs/accounts.md "Projects and team"), and the one rule for reaching a
// project's data (docs/api.md "Credentials").
package access

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Permission names (docs/accounts.md "Projects and team").
type Permission string

// The permissions a role can hold.
const (
	ViewAnalytics Permission = "VIEW_ANALYTICS"
	CreateEvents  Permission = "CREATE_EVENTS"
	ExportData    Permission = "EXPORT_DATA"
	EditProject   Permission = "EDIT_PROJECT"
	ManageMembers Permission = "MANAGE_MEMBERS"
	ManageKeys    Permission = "MANAGE_KEYS"
	DeleteProject Permission = "DELETE_PROJECT"
)

var rolePermissions = map[string][]Permission{
	"viewer": {ViewAnalytics},
	"member": {ViewAnalytics, CreateEvents, ExportData},
	"admin":  {ViewAnalytics, CreateEvents, ExportData, EditProject, ManageMembers, ManageKeys, DeleteProject},
}

// apiKeyPermissions are what a project key grants: data, never management.
var apiKeyPermissions = []Permission{ViewAnalytics, CreateEvents, ExportData}

// RoleHas reports whether role holds perm.
func RoleHas(role string, perm Permission) bool {
	for _, p := range rolePermissions[role] {
		if p == perm {
			return true
		}
	}
	return false
}

// KeyHas reports whether a project API key grants perm.
func KeyHas(perm Permission) bool {
	for _, p := range apiKeyPermissions {
		if p == perm {
			return true
		}
	}
	return false
}

// ValidRole reports whether role is one of admin, member, viewer.
func ValidRole(role string) bool { _, ok := rolePermissions[role]; return ok }

// Kind says what credential a request carried.
type Kind int

// Credential kinds.
const (
	None Kind = iota
	APIKey
	Session
)

// Memberships looks up a user's accepted role in a project.
type Memberships interface {
	MemberRole(ctx context.Context, projectID, userID string) (role string, owner bool, err error)
}

// Principal is the resolved caller. Err is set when a credential was sent
// but is not valid; the request is still served if its route is public.
type Principal struct {
	Kind      Kind
	ProjectID string // API key
	KeyHash   []byte // API key, for rate limiting without the key itself
	UserID    string // session
	SessionID string // session
	Err       error
	members   Memberships
}

// NewPrincipal returns a principal that can check memberships with m.
func NewPrincipal(kind Kind, m Memberships) *Principal { return &Principal{Kind: kind, members: m} }

type ctxKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the request's principal (never nil).
func FromContext(ctx context.Context) *Principal {
	if p, ok := ctx.Value(ctxKey{}).(*Principal); ok {
		return p
	}
	return &Principal{}
}

func (p *Principal) unauthorized() error {
	if p.Err != nil {
		return p.Err
	}
	return apierr.New(apierr.Unauthorized, "missing credentials").
		WithHint("send Authorization: Bearer <API key or access token>")
}

// RequireAPIKey returns the key's project, or 401.
func (p *Principal) RequireAPIKey() (string, error) {
	if p.Kind != APIKey {
		if p.Kind == Session {
			return "", apierr.New(apierr.Unauthorized, "this endpoint needs a project API key (sk_...)")
		}
		return "", p.unauthorized()
	}
	return p.ProjectID, nil
}

// RequireSession returns the session's user, or 401.
func (p *Principal) RequireSession() (string, error) {
	if p.Kind != Session {
		if p.Kind == APIKey {
			return "", apierr.New(apierr.Unauthorized, "this endpoint needs a session access token, not an API key")
		}
		return "", p.unauthorized()
	}
	return p.UserID, nil
}

// CanonicalUUID is s in the lower-case hyphenated form when it is a UUID
// in any case or accepted layout, else s unchanged: a UUID names the same
// project however it is written.
func CanonicalUUID(s string) string {
	if u, err := uuid.Parse(strings.TrimSpace(s)); err == nil {
		return u.String()
	}
	return s
}

// Project resolves the project whose data the request reaches: an API key's
// own project (a different project_id is 403), or for a session the
// project_id parameter, which must name a project the user is an accepted
// member of with perm (absent: 422; not a member: 404; lacking perm: 403).
func (p *Principal) Project(ctx context.Context, projectID string, perm Permission) (string, error) {
	projectID = CanonicalUUID(projectID)
	switch p.Kind {
	case APIKey:
		if projectID != "" && projectID != p.ProjectID {
			return "", apierr.New(apierr.Forbidden, "project_id does not match the API key's project")
		}
		if KeyHas(perm) {
			return p.ProjectID, nil
		}
		return "", apierr.New(apierr.Forbidden, "an API key cannot do this; use a member session")
	case Session:
		if projectID == "" {
			return "", apierr.Field("project_id", "is required with a session token")
		}
		if uuid.Validate(projectID) != nil {
			return "", apierr.New(apierr.NotFound, "project not found")
		}
		return projectID, p.RequireRole(ctx, projectID, perm)
	}
	return "", p.unauthorized()
}

// RequireRole checks that the session's user holds perm in projectID.
func (p *Principal) RequireRole(ctx context.Context, projectID string, perm Permission) error {
	if _, err := p.RequireSession(); err != nil {
		return err
	}
	role, _, err := p.members.MemberRole(ctx, projectID, p.UserID)
	if err != nil {
		return err
	}
	if !RoleHas(role, perm) {
		return apierr.Newf(apierr.Forbidden, "your role (%s) lacks the %s permission", role, perm)
	}
	return nil
}
