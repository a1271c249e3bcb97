package apiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// catalogueEntryJSON is one model of the catalogue. Rates are USD per 1000
// tokens written from the exact integers; a null cache rate is not
// published by the provider (such tokens are billed at the input rate, or a
// 1-hour write at the 5-minute write rate).
type catalogueEntryJSON struct {
	Model             string           `json:"model"`
	Provider          string           `json:"provider"`
	Mode              string           `json:"mode"`
	InputPer1K        json.Number      `json:"input_per_1k"`
	OutputPer1K       json.Number      `json:"output_per_1k"`
	CacheReadPer1K    *json.Number     `json:"cache_read_per_1k"`
	CacheWritePer1K   *json.Number     `json:"cache_write_per_1k"`
	CacheWrite1hPer1K *json.Number     `json:"cache_write_1h_per_1k"`
	LongContext       *longContextJSON `json:"long_context"`
	MaxInputTokens    *int64           `json:"max_input_tokens"`
	MaxOutputTokens   *int64           `json:"max_output_tokens"`
	DeprecationDate   *string          `json:"deprecation_date"`
	Replacement       *string          `json:"replacement"`
	Source            string           `json:"source"`
	UpdatedAt         string           `json:"updated_at"`
	// Period is the rate period in force now (null for a model with one
	// price); Periods lists every dated or time-of-day rate, oldest first.
	Period   *string         `json:"period"`
	Periods  []periodJSON    `json:"periods"`
	Aliases  []aliasJSON     `json:"aliases"`
	Resolved *resolutionJSON `json:"resolved,omitempty"`
}

// longContextJSON is the tier that prices a whole call whose prompt
// exceeds threshold_tokens: the rates in force above it.
type longContextJSON struct {
	ThresholdTokens   int64        `json:"threshold_tokens"`
	InputPer1K        json.Number  `json:"input_per_1k"`
	OutputPer1K       json.Number  `json:"output_per_1k"`
	CacheReadPer1K    *json.Number `json:"cache_read_per_1k"`
	CacheWritePer1K   *json.Number `json:"cache_write_per_1k"`
	CacheWrite1hPer1K *json.Number `json:"cache_write_1h_per_1k"`
}

// catalogueEntry shows an entry with the rates in force at now.
func catalogueEntry(e pricing.Entry, updatedAt, now time.Time) catalogueEntryJSON {
	all := e
	e, period := e.At(now)
	out := catalogueEntryJSON{
		Model: e.Model, Provider: e.Provider, Mode: e.Mode,
		InputPer1K: per1K(e.Base.Input), OutputPer1K: per1K(e.Base.Output),
		CacheReadPer1K:    optPer1K(e.Base.CacheRead, e.Base.HasCacheRead),
		CacheWritePer1K:   optPer1K(e.Base.CacheWrite, e.Base.HasCacheWrite),
		CacheWrite1hPer1K: optPer1K(e.Base.CacheWrite1h, e.Base.HasCacheWrite1h),
		MaxInputTokens:    optTokens(e.MaxInputTokens), MaxOutputTokens: optTokens(e.MaxOutputTokens),
		DeprecationDate: optText(e.DeprecationDate), Replacement: optText(e.Replacement),
		Source: e.Source, UpdatedAt: ts(updatedAt), Period: optText(period),
		LongContext: longContext(e), Periods: periods(all), Aliases: aliases(all),
	}
	return out
}

// longContext shows an entry's tier with the base rates filled in.
func longContext(e pricing.Entry) *longContextJSON {
	t := e.LongContext
	if t == nil {
		return nil
	}
	r, _ := e.EffectiveRates(t.ThresholdTokens + 1)
	return &longContextJSON{ThresholdTokens: t.ThresholdTokens,
		InputPer1K: per1K(r.Input), OutputPer1K: per1K(r.Output),
		CacheReadPer1K:    optPer1K(r.CacheRead, r.HasCacheRead),
		CacheWritePer1K:   optPer1K(r.CacheWrite, r.HasCacheWrite),
		CacheWrite1hPer1K: optPer1K(r.CacheWrite1h, r.HasCacheWrite1h)}
}

// listPricing is GET /v1/pricing: every model, sorted by name; the optional
// provider parameter keeps one provider's models.
func (s *Server) listPricing(w http.ResponseWriter, r *http.Request) error {
	cat := s.Catalogue.Load()
	provider := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("provider")))
	models := []catalogueEntryJSON{}
	for _, e := range cat.Entries() {
		if provider == "" || e.Provider == provider {
			models = append(models, catalogueEntry(e, s.Pricing.UpdatedAt(e.Model), time.Now()))
		}
	}
	st := s.Pricing.Status()
	return ok(w, http.StatusOK, catalogueJSON{Models: models, Total: len(models), Source: cat.Source(),
		Version: cat.Version(), SyncedAt: optTime(st.SyncedAt)})
}

// modelPricing is GET /v1/pricing/{model_name}: the name as a client sends
// it (provider prefixes, dates, any case), raw or URL-encoded.
func (s *Server) modelPricing(w http.ResponseWriter, r *http.Request) error {
	name := mux.Vars(r)["model_name"]
	cat := s.Catalogue.Load()
	e, res, found := cat.Resolve(name)
	if !found {
		return unknownModel(cat, "model", name)
	}
	out := catalogueEntry(e, s.Pricing.UpdatedAt(e.Model), time.Now())
	out.Resolved = &resolutionJSON{Requested: name, Model: e.Model, Via: res.Via, Deprecated: e.DeprecationDate != ""}
	if res.Via == "retired" {
		// The provider retired the name and serves it with this model.
		out.Resolved.Deprecated = true
		out.DeprecationDate, out.Replacement = optText(res.Retired), optText(e.Model)
	}
	return ok(w, http.StatusOK, out)
}

// pricingVersion is GET /v1/pricing/versions/{version}: the catalogue an
// event's price_version names, or with ?model= the one entry that priced
// that model. Entries show the version's creation as updated_at. The
// mirror keeps no versions.
func (s *Server) pricingVersion(w http.ResponseWriter, r *http.Request) error {
	version := mux.Vars(r)["version"]
	if s.Mirror {
		return apierr.New(apierr.NotFound, "price versions are kept by the origin, not the mirror")
	}
	cat, created, err := s.DB.CatalogueVersion(r.Context(), version)
	if err != nil {
		return err
	}
	entries := cat.Entries()
	if model := r.URL.Query().Get("model"); model != "" {
		e, found := cat.Lookup(model)
		if !found {
			return unknownModel(cat, "model", model)
		}
		entries = []pricing.Entry{e}
	}
	models := make([]catalogueEntryJSON, len(entries))
	for i, e := range entries {
		models[i] = catalogueEntry(e, created, time.Now())
	}
	return ok(w, http.StatusOK, versionJSON{Version: cat.Version(), Source: cat.Source(),
		CreatedAt: ts(created), Models: models, Total: len(models)})
}

// unknownModel is the 404 for a model the catalogue does not price, with
// close names as the hint.
func unknownModel(cat *pricing.Catalogue, field, name string) *apierr.Error {
	return apierr.Newf(apierr.NotFound, "%s %q is not in the price catalogue", field, name).
		WithHint(closeNames(cat, name))
}

// closeNames is the "did you mean" hint for an unknown model name.
func closeNames(cat *pricing.Catalogue, name string) string {
	if names := cat.Suggest(name, 5); len(names) > 0 {
		return "close names: " + strings.Join(names, ", ")
	}
	return "no close name; GET /v1/pricing lists every model"
}

// deprecations is GET /v1/pricing/deprecations, by date then model.
func (s *Server) deprecations(w http.ResponseWriter, _ *http.Request) error {
	out := []deprecationJSON{}
	for _, d := range s.Catalogue.Load().Deprecations() {
		out = append(out, deprecationJSON{d.Model, d.DeprecationDate, d.Replacement})
	}
	return ok(w, http.StatusOK, deprecationsJSON{Deprecations: out, Total: len(out)})
}

// syncStatus is GET /v1/pricing/sync/status. The last_* fields are about
// the network sync; mode, models, changed_models and synced_at describe
// the catalogue in force, whichever path (sync or import) put it there.
func (s *Server) syncStatus(w http.ResponseWriter, _ *http.Request) error {
	st := s.Pricing.Status()
	return ok(w, http.StatusOK, syncStatusJSON{
		SourceURL: optText(st.SourceURL), LastAttemptAt: optTime(st.LastAttemptAt),
		LastSuccessAt: optTime(st.LastSuccessAt), LastError: optText(st.LastError),
		Models: st.Models, ChangedModels: st.ChangedModels, NextSyncAt: optTime(st.NextSyncAt),
		Mode: st.Mode, Source: st.Source, Version: st.Version, SyncedAt: optTime(st.SyncedAt),
		SourceURLs: append([]string{}, st.SourceURLs...), Disagreements: disagreements(st.Disagreements),
	})
}
