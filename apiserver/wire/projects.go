package wire

// Project is the Project resource. api_key and key_prefix are null
// except on create, which also names the owner and warns to store the key;
// role and is_owner are the caller's, where the caller is a member.
type Project struct {
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

// ProjectList is GET /v1/projects.
type ProjectList struct {
	Projects []Project `json:"projects"`
	Total    int       `json:"total"`
}

// ProjectRequest is the body of POST /v1/projects.
type ProjectRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ProjectPatchRequest is the body of PATCH /v1/projects/{project_id}:
// absent fields stay as they are.
type ProjectPatchRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	IsActive    *bool   `json:"is_active"`
}

// ProjectDeleted is DELETE /v1/projects/{project_id}.
type ProjectDeleted struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
}

// KeyRotated is POST /v1/projects/{project_id}/api-key/rotate.
type KeyRotated struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
	APIKey    string `json:"api_key"`
	KeyPrefix string `json:"key_prefix"`
	Message   string `json:"message"`
}

// Member is one membership: accepted, or a pending invitation.
type Member struct {
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

// MemberList is GET /v1/projects/{project_id}/members.
type MemberList struct {
	Members []Member `json:"members"`
	Total   int      `json:"total"`
}

// InviteRequest is the body of POST /v1/projects/{project_id}/members.
type InviteRequest struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

// RoleRequest is the body of PATCH /v1/projects/{project_id}/members/{user_id}.
type RoleRequest struct {
	Role string `json:"role"`
}

// Invited is POST /v1/projects/{project_id}/members.
type Invited struct {
	Message      string `json:"message"`
	MembershipID string `json:"membership_id"`
	Role         string `json:"role"`
}

// Inviter names who sent an invitation.
type Inviter struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Invitation is one pending invitation of the caller.
type Invitation struct {
	ProjectID   string   `json:"project_id"`
	ProjectName string   `json:"project_name"`
	Role        string   `json:"role"`
	InvitedBy   *Inviter `json:"invited_by"`
	InvitedAt   string   `json:"invited_at"`
}

// InvitationList is GET /v1/projects/invitations/pending.
type InvitationList struct {
	Invitations []Invitation `json:"invitations"`
	Total       int          `json:"total"`
}

// Accepted is POST /v1/projects/{project_id}/invitations/accept.
type Accepted struct {
	Status    string `json:"status"`
	ProjectID string `json:"project_id"`
	Role      string `json:"role"`
}

// RoleChanged is PATCH /v1/projects/{project_id}/members/{user_id}.
type RoleChanged struct {
	Status  string `json:"status"`
	NewRole string `json:"new_role"`
}
