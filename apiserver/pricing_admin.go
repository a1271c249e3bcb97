package apiserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// maxImportBody bounds an uploaded price file; the server's
// max_request_body_size (5 MiB by default, after gzip decoding) usually
// binds first.
const maxImportBody = 64 << 20

// requireDeploymentAdmin admits a session whose user's e-mail is listed in
// admin_emails (compared case-insensitively) and, when mail is configured,
// verified: no credentials is 401, an API key or anyone else is 403.
func (s *Server) requireDeploymentAdmin(r *http.Request) error {
	p := access.FromContext(r.Context())
	if p.Kind == access.APIKey {
		return apierr.New(apierr.Forbidden, "an API key cannot do this; it needs a deployment admin's session")
	}
	userID, err := p.RequireSession()
	if err != nil {
		return err
	}
	user, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	for _, a := range s.AdminEmails {
		if !strings.EqualFold(strings.TrimSpace(a), user.Email) {
			continue
		}
		// Registering does not prove owning the address: where mail can
		// prove it, an unverified account is not yet the admin it claims.
		if !s.addressProven(user) {
			return apierr.New(apierr.Forbidden, "verify your e-mail address before using admin operations").
				WithHint("follow the link in the verification e-mail, or POST /v1/auth/verify-email/resend")
		}
		return nil
	}
	return apierr.New(apierr.Forbidden, "only deployment admins may do this").
		WithHint("deployment admins are the e-mails listed in the server's admin_emails setting (LLMCOST_ADMIN_EMAILS)")
}

type skippedJSON struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// importPricing is POST /v1/pricing/import: the body is a LiteLLM
// model_prices_and_context_window.json file, parsed and bounded exactly as
// the network sync does, merged over the built-in prices, persisted and
// put in force.
func (s *Server) importPricing(w http.ResponseWriter, r *http.Request) {
	if err := s.requireDeploymentAdmin(r); err != nil {
		s.fail(w, r, err)
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxImportBody+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		s.fail(w, r, apierr.Newf(apierr.PayloadTooLarge, "the price file exceeds the %d-byte request limit", tooLarge.Limit).
			WithHint("gzip it (Content-Encoding: gzip; the limit applies after decoding) or raise http.max_request_body_size"))
		return
	case err != nil:
		s.fail(w, r, apierr.New(apierr.BadRequest, "could not read the request body"))
		return
	case len(data) > maxImportBody:
		s.fail(w, r, apierr.Newf(apierr.PayloadTooLarge, "the price file exceeds %d bytes", maxImportBody))
		return
	}
	rep, err := s.Pricing.Import(r.Context(), data)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	skipped := make([]skippedJSON, len(rep.Skipped))
	for i, k := range rep.Skipped {
		skipped[i] = skippedJSON{k.Model, k.Reason}
	}
	ok(w, http.StatusOK, map[string]any{"imported": rep.Imported, "skipped": skipped,
		"changed_models": rep.ChangedModels, "version": rep.Version, "models": s.Catalogue.Load().Len()})
}

type repriceRequest struct {
	Start     string   `json:"start"`
	End       string   `json:"end"`
	ProjectID string   `json:"project_id"`
	Models    []string `json:"models"`
	DryRun    *bool    `json:"dry_run"`
}

type repriceChangeJSON struct {
	Model    string `json:"model"`
	Events   int64  `json:"events"`
	OldTotal any    `json:"old_total"`
	NewTotal any    `json:"new_total"`
}

// reprice is POST /v1/pricing/reprice: re-price stored events in a time
// range with the catalogue in force. dry_run defaults to true.
func (s *Server) reprice(w http.ResponseWriter, r *http.Request) {
	if err := s.requireDeploymentAdmin(r); err != nil {
		s.fail(w, r, err)
		return
	}
	var req repriceRequest
	if err := decode(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := checkReprice(&req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	dryRun := req.DryRun == nil || *req.DryRun
	res, err := s.DB.Reprice(r.Context(), s.Catalogue.Load(), f, dryRun)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	changes := make([]repriceChangeJSON, len(res.Changes))
	for i, c := range res.Changes {
		changes[i] = repriceChangeJSON{c.Model, c.Events, usdNumber(c.OldTotal), usdNumber(c.NewTotal)}
	}
	ok(w, http.StatusOK, map[string]any{"dry_run": dryRun, "events": res.Events,
		"old_total": usdNumber(res.OldTotal), "new_total": usdNumber(res.NewTotal), "changes": changes,
		"price_version": res.PriceVersion, "start": ts(f.Start), "end": ts(f.End)})
}

// checkReprice validates a re-pricing request: start and end ISO 8601 with
// start before end, an optional project UUID and up to 1000 model names.
func checkReprice(req *repriceRequest) (postgres.RepriceFilter, error) {
	var f postgres.RepriceFilter
	var err error
	if f.Start, err = parseInstant("start", req.Start); err != nil {
		return f, err
	}
	if f.End, err = parseInstant("end", req.End); err != nil {
		return f, err
	}
	if !f.End.After(f.Start) {
		return f, apierr.Field("end", "must be after start")
	}
	if f.ProjectID = strings.TrimSpace(req.ProjectID); f.ProjectID != "" && uuid.Validate(f.ProjectID) != nil {
		return f, apierr.Field("project_id", "must be a project UUID")
	}
	if len(req.Models) > 1000 {
		return f, apierr.Field("models", "must list at most 1000 names")
	}
	for i, m := range req.Models {
		if strings.TrimSpace(m) == "" {
			return f, apierr.Field(fmt.Sprintf("models[%d]", i), "must be a model name")
		}
	}
	f.Models = req.Models
	return f, nil
}

func parseInstant(field, v string) (time.Time, error) {
	if strings.TrimSpace(v) == "" {
		return time.Time{}, apierr.Field(field, "is required (ISO 8601, e.g. 2026-07-01T00:00:00Z)")
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, apierr.Field(field, "must be an ISO 8601 timestamp with a time zone, e.g. 2026-07-01T00:00:00Z")
	}
	return t.UTC(), nil
}
