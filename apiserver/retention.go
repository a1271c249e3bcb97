package apiserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Retention bounds, in days: a day to ten years.
const (
	minRetentionDays = 1
	maxRetentionDays = 3650
)

// getRetention is GET /v1/projects/{project_id}/retention.
func (s *Server) getRetention(r *http.Request) (wire.Retention, error) {
	ret, err := s.DB.Retention(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return wire.Retention{}, err
	}
	return s.retentionJSON(ret), nil
}

// putRetention is PUT /v1/projects/{project_id}/retention: both settings
// are checked before either is stored, so a refused request changes
// nothing.
func (s *Server) putRetention(w http.ResponseWriter, r *http.Request) error {
	var req wire.RetentionRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		days *int
	}{{"raw_days", req.RawDays}, {"rollup_days", req.RollupDays}} {
		if f.days != nil && (*f.days < minRetentionDays || *f.days > maxRetentionDays) {
			return apierr.Field(f.name, "must be from 1 (a day) to 3650 (ten years) days, or null for the deployment's default")
		}
	}
	ctx, project := r.Context(), callerOf(r).ProjectID
	if err := rollupsOutliveCalls(req, s.DB.RawRetentionDays); err != nil {
		return err
	}
	if err := s.DB.PutRetention(ctx, project, req.RawDays, req.RollupDays); err != nil {
		return err
	}
	ret, err := s.DB.Retention(ctx, project)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, s.retentionJSON(ret))
}

// rollupsOutliveCalls refuses a project's own rollup retention shorter
// than the raw retention in force (the project's or the deployment's, 0
// keeping forever): the reports read the rollups once the calls are gone,
// so they must not go first. A deployment's rollup default shorter than a
// raw retention is not refused: the expiry keeps rollups as long as the
// calls (Retention.RollupExpiredBefore).
func rollupsOutliveCalls(req wire.RetentionRequest, defRaw int) error {
	raw := defRaw
	if req.RawDays != nil {
		raw = *req.RawDays
	}
	if req.RollupDays == nil || (raw != 0 && *req.RollupDays >= raw) {
		return nil
	}
	rawIs := "kept forever"
	if raw != 0 {
		rawIs = fmt.Sprintf("%d days", raw)
	}
	return apierr.Field("rollup_days", fmt.Sprintf("must be at least the raw retention in force (%s), or null: "+
		"rollups outlive the calls they sum", rawIs))
}

func (s *Server) retentionJSON(ret postgres.Retention) wire.Retention {
	return wire.Retention{RawDays: ret.RawDays, RollupDays: ret.RollupDays,
		DefaultRawDays: daysOrNull(ret.DefaultRawDays), DefaultRollupDays: daysOrNull(ret.DefaultRollupDays),
		RawExpiredBefore:    expiredTS(ret.RawExpiredBefore(s.Now())),
		RollupExpiredBefore: expiredTS(ret.RollupExpiredBefore(s.Now()))}
}

// daysOrNull is a deployment setting as the API writes it: 0 (forever)
// is null.
func daysOrNull(d int) *int {
	if d == 0 {
		return nil
	}
	return &d
}

// expiredTS writes an expiry instant; nil (nothing expired) is null.
func expiredTS(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}
