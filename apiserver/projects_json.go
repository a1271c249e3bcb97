package apiserver

import (
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/postgres"
)

// storeKeyWarning goes with every newly shown API key.
const storeKeyWarning = "Store this API key now: it cannot be retrieved later."

func newProjectJSON(p postgres.Project) wire.Project {
	return wire.Project{ID: p.ID, Name: p.Name, Description: p.Description, IsActive: p.IsActive,
		CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt)}
}

// withKey is the project as created: its key shown once.
func withKey(j wire.Project, p postgres.Project, key string) wire.Project {
	j.APIKey, j.KeyPrefix = &key, &p.KeyPrefix
	j.OwnerID, j.Warning = p.OwnerID, storeKeyWarning
	return j
}

// withRole adds the caller's role in the project.
func withRole(j wire.Project, role string, owner bool) wire.Project {
	j.Role, j.IsOwner = role, &owner
	return j
}
