package apiserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// maxImportBody bounds an uploaded price file; the server's
// max_request_body_size (5 MiB by default, after gzip decoding) usually
// binds first.
const maxImportBody = 64 << 20

// importPricing is POST /v1/pricing/import: the body is a LiteLLM
// model_prices_and_context_window.json file, parsed and bounded exactly as
// the network sync does, merged over the built-in prices, persisted and
// put in force.
func (s *Server) importPricing(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxImportBody+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return apierr.Newf(apierr.PayloadTooLarge, "the price file exceeds the %d-byte request limit", tooLarge.Limit).
			WithHint("gzip it (Content-Encoding: gzip; the limit applies after decoding) or raise http.max_request_body_size")
	case err != nil:
		return apierr.New(apierr.BadRequest, "could not read the request body")
	case len(data) > maxImportBody:
		return apierr.Newf(apierr.PayloadTooLarge, "the price file exceeds %d bytes", maxImportBody)
	}
	rep, err := s.Pricing.Import(r.Context(), data)
	if err != nil {
		return err
	}
	skipped := make([]wire.SkippedModel, len(rep.Skipped))
	for i, k := range rep.Skipped {
		skipped[i] = wire.SkippedModel{Model: k.Model, Reason: k.Reason}
	}
	return ok(w, http.StatusOK, wire.Import{Imported: rep.Imported, Skipped: skipped,
		ChangedModels: rep.ChangedModels, Version: rep.Version, Models: s.Catalogue.Load().Len()})
}

// reprice is POST /v1/pricing/reprice: re-price stored events in a time
// range with the catalogue in force. dry_run defaults to true.
func (s *Server) reprice(w http.ResponseWriter, r *http.Request) error {
	var req wire.RepriceRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	f, err := checkReprice(&req)
	if err != nil {
		return err
	}
	dryRun := req.DryRun == nil || *req.DryRun
	res, err := s.DB.Reprice(r.Context(), s.Catalogue.Load(), f, dryRun)
	if err != nil {
		return err
	}
	changes := make([]wire.RepriceChange, len(res.Changes))
	for i, c := range res.Changes {
		changes[i] = wire.RepriceChange{Model: c.Model, Events: c.Events, OldTotal: money(c.OldTotal), NewTotal: money(c.NewTotal)}
	}
	return ok(w, http.StatusOK, wire.Reprice{DryRun: dryRun, Events: res.Events, EventsRefused: res.Refused,
		OldTotal: money(res.OldTotal), NewTotal: money(res.NewTotal), Changes: changes,
		PriceVersion: res.PriceVersion, Start: ts(f.Start), End: ts(f.End)})
}

// checkReprice validates a re-pricing request: start and end ISO 8601 with
// start before end, an optional project UUID and up to 1000 model names.
func checkReprice(req *wire.RepriceRequest) (postgres.RepriceFilter, error) {
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
	if f.ProjectID = access.CanonicalUUID(strings.TrimSpace(req.ProjectID)); f.ProjectID != "" && uuid.Validate(f.ProjectID) != nil {
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
