package dashboard

import (
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
)

// retentionForm is POST /settings/retention: PUT
// /v1/projects/{project_id}/retention, an empty field being the
// deployment's default (null); the API checks the bounds.
func (d *Dashboard) retentionForm(pd *dash) (string, *wire.WebhookTest, error) {
	var req wire.RetentionRequest
	for _, f := range []struct {
		name string
		dst  **int
	}{{"raw_days", &req.RawDays}, {"rollup_days", &req.RollupDays}} {
		v := strings.TrimSpace(pd.r.PostForm.Get(f.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", nil, apierr.Field(f.name, "must be a whole number of days from 1 to 3650, or empty for the deployment's default")
		}
		*f.dst = &n
	}
	if err := pd.api.putRetention(pd.pg.ProjectID, req); err != nil {
		return "", nil, err
	}
	return "Retention saved.", nil, nil
}
