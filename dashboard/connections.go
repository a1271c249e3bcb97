package dashboard

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
)

// Provider connections on the settings page. The admin key goes from the
// form to the API and nowhere else: the password field is never filled
// back, and a flash names only the provider and the key's hint.

// scopeFields maps the form's scope kind to the request field it fills;
// the API says which kinds a provider takes.
var scopeFields = map[string]func(*wire.ConnectionRequest, []string){
	"workspace_ids": func(r *wire.ConnectionRequest, ids []string) { r.WorkspaceIDs = ids },
	"project_ids":   func(r *wire.ConnectionRequest, ids []string) { r.ProjectIDs = ids },
	"api_key_ids":   func(r *wire.ConnectionRequest, ids []string) { r.APIKeyIDs = ids },
}

// connectForm is POST /settings/connections: connect a provider or replace
// its connection.
func (d *Dashboard) connectForm(pd *dash) (string, *wire.WebhookTest, error) {
	f := pd.r.PostForm
	provider := f.Get("provider")
	req := wire.ConnectionRequest{}
	// An empty key field keeps the stored key, as the API does when the
	// body has none, so a scope or tolerance can change alone.
	if k := f.Get("admin_key"); k != "" {
		req.AdminKey = &k
	}
	if ids := splitIDs(f.Get("scope_ids")); len(ids) > 0 {
		set, ok := scopeFields[f.Get("scope_kind")]
		if !ok {
			return "", nil, apierr.Field("scope_kind", "must be workspace_ids, project_ids or api_key_ids")
		}
		set(&req, ids)
	}
	if v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f.Get("tolerance_percent")), "%")); v != "" {
		n := json.Number(v)
		if _, err := n.Float64(); err != nil {
			return "", nil, apierr.Field("tolerance_percent", "must be a number from 0 to 100")
		}
		req.TolerancePercent = &n
	}
	if v := strings.TrimSpace(f.Get("backfill_days")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", nil, apierr.Field("backfill_days", "must be a whole number of days")
		}
		req.BackfillDays = &n
	}
	out, err := pd.api.putConnection(pd.pg.ProjectID, provider, req)
	if err != nil {
		return "", nil, err
	}
	return "Connected " + out.Provider + " with the key ending " + out.KeyHint + ".", nil, nil
}

// connectionSyncForm is POST /settings/connections/sync.
func (d *Dashboard) connectionSyncForm(pd *dash) (string, *wire.WebhookTest, error) {
	out, err := pd.api.syncConnection(pd.pg.ProjectID, pd.r.PostForm.Get("provider"))
	if err != nil {
		return "", nil, err
	}
	return "Sync of " + out.Provider + " requested.", nil, nil
}

// disconnectForm is POST /settings/connections/delete: the key and what
// was fetched with it are removed.
func (d *Dashboard) disconnectForm(pd *dash) (string, *wire.WebhookTest, error) {
	provider := pd.r.PostForm.Get("provider")
	if err := pd.api.deleteConnection(pd.pg.ProjectID, provider); err != nil {
		return "", nil, err
	}
	return "Disconnected " + provider + ".", nil, nil
}

// splitIDs reads comma- or space-separated ids.
func splitIDs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
}
