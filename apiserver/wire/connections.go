package wire

import "encoding/json"

// ConnectionRequest is the body of PUT
// /v1/projects/{project_id}/connections/{provider}.
type ConnectionRequest struct {
	AdminKey         *string      `json:"admin_key"`
	WorkspaceIDs     []string     `json:"workspace_ids"`
	ProjectIDs       []string     `json:"project_ids"`
	APIKeyIDs        []string     `json:"api_key_ids"`
	BackfillDays     *int         `json:"backfill_days"`
	TolerancePercent *json.Number `json:"tolerance_percent"`
}

// ConnectionRead is a connection as the API shows it: never the key, only
// its last four characters.
type ConnectionRead struct {
	Provider         string      `json:"provider"`
	KeyHint          string      `json:"key_hint"`
	WorkspaceIDs     []string    `json:"workspace_ids"`
	ProjectIDs       []string    `json:"project_ids"`
	APIKeyIDs        []string    `json:"api_key_ids"`
	BackfillDays     int         `json:"backfill_days"`
	TolerancePercent json.Number `json:"tolerance_percent"`
	SyncStatus       string      `json:"sync_status"`
	LastSyncAt       *string     `json:"last_sync_at"`
	LastSyncError    *string     `json:"last_sync_error"`
	NextSyncAt       *string     `json:"next_sync_at"`
	CreatedAt        string      `json:"created_at"`
	UpdatedAt        string      `json:"updated_at"`
}

// ConnectionList is GET /v1/projects/{project_id}/connections.
type ConnectionList struct {
	Connections []ConnectionRead `json:"connections"`
	Total       int              `json:"total"`
}
