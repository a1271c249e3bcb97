package apiserver

import "github.com/llmcost/llmcost/internal/postgres"

// projectJSON is the Project resource. api_key and key_prefix are null
// except on create, which also names the owner and warns to store the key;
// role and is_owner are the caller's, where the caller is a member.
type projectJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	IsActive    bool    `json:"is_active"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	APIKey      *string `json:"api_key"`
	KeyPrefix   *string `json:"key_prefix"`
	OwnerID     string  `json:"owner_id,omitempty"`
	Warning     string  `json:"warning,omitempty"`
	Role        string  `json:"role,omitempty"`
	IsOwner     *bool   `json:"is_owner,omitempty"`
}

// storeKeyWarning goes with every newly shown API key.
const storeKeyWarning = "Store this API key now: it cannot be retrieved later."

func newProjectJSON(p postgres.Project) projectJSON {
	return projectJSON{ID: p.ID, Name: p.Name, Description: p.Description, IsActive: p.IsActive,
		CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt)}
}

// withKey is the project as created: its key shown once.
func (j projectJSON) withKey(p postgres.Project, key string) projectJSON {
	j.APIKey, j.KeyPrefix = &key, &p.KeyPrefix
	j.OwnerID, j.Warning = p.OwnerID, storeKeyWarning
	return j
}

// withRole adds the caller's role in the project.
func (j projectJSON) withRole(role string, owner bool) projectJSON {
	j.Role, j.IsOwner = role, &owner
	return j
}

// projectListJSON is GET /v1/projects.
type projectListJSON struct {
	Projects []projectJSON `json:"projects"`
	Total    int           `json:"total"`
}

// projectDeletedJSON is DELETE /v1/projects/{project_id}.
type projectDeletedJSON struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
}

// keyRotatedJSON is POST /v1/projects/{project_id}/api-key/rotate.
type keyRotatedJSON struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
	APIKey    string `json:"api_key"`
	KeyPrefix string `json:"key_prefix"`
	Message   string `json:"message"`
}

// memberJSON is one membership: accepted, or a pending invitation.
type memberJSON struct {
	ID         string  `json:"id"`
	UserID     *string `json:"user_id"`
	Email      string  `json:"email"`
	Name       string  `json:"name"`
	Role       string  `json:"role"`
	IsOwner    bool    `json:"is_owner"`
	IsPending  bool    `json:"is_pending"`
	AcceptedAt *string `json:"accepted_at"`
	InvitedAt  string  `json:"invited_at"`
}

// memberListJSON is GET /v1/projects/{project_id}/members.
type memberListJSON struct {
	Members []memberJSON `json:"members"`
	Total   int          `json:"total"`
}

// invitedJSON is POST /v1/projects/{project_id}/members.
type invitedJSON struct {
	Message      string `json:"message"`
	MembershipID string `json:"membership_id"`
	Role         string `json:"role"`
}

// inviterJSON names who sent an invitation.
type inviterJSON struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// invitationJSON is one pending invitation of the caller.
type invitationJSON struct {
	ProjectID   string       `json:"project_id"`
	ProjectName string       `json:"project_name"`
	Role        string       `json:"role"`
	InvitedBy   *inviterJSON `json:"invited_by"`
	InvitedAt   string       `json:"invited_at"`
}

// invitationListJSON is GET /v1/projects/invitations/pending.
type invitationListJSON struct {
	Invitations []invitationJSON `json:"invitations"`
	Total       int              `json:"total"`
}

// acceptedJSON is POST /v1/projects/{project_id}/invitations/accept.
type acceptedJSON struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
	Role      string `json:"role"`
}

// roleChangedJSON is PATCH /v1/projects/{project_id}/members/{user_id}.
type roleChangedJSON struct {
	Status  string `json:"status"`
	NewRole string `json:"new_role"`
}
