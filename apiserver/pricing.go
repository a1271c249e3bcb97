package apiserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// catalogueEntry shows an entry with the rates in force at now.
func catalogueEntry(e pricing.Entry, updatedAt, now time.Time) wire.CatalogueEntry {
	all := e
	e, period := e.At(now)
	out := wire.CatalogueEntry{
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
func longContext(e pricing.Entry) *wire.LongContext {
	t := e.LongContext
	if t == nil {
		return nil
	}
	r, _ := e.EffectiveRates(t.ThresholdTokens + 1)
	return &wire.LongContext{ThresholdTokens: t.ThresholdTokens,
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
	models := []wire.CatalogueEntry{}
	for _, e := range cat.Entries() {
		if provider == "" || e.Provider == provider {
			models = append(models, catalogueEntry(e, s.Pricing.UpdatedAt(e.Model), time.Now()))
		}
	}
	st := s.Pricing.Status()
	return ok(w, http.StatusOK, wire.Catalogue{Models: models, Total: len(models), Source: cat.Source(),
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
	out.Resolved = &wire.Resolution{Requested: name, Model: e.Model, Via: res.Via, Deprecated: e.DeprecationDate != ""}
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
	models := make([]wire.CatalogueEntry, len(entries))
	for i, e := range entries {
		models[i] = catalogueEntry(e, created, time.Now())
	}
	return ok(w, http.StatusOK, wire.CatalogueVersion{Version: cat.Version(), Source: cat.Source(),
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
	out := []wire.Deprecation{}
	for _, d := range s.Catalogue.Load().Deprecations() {
		out = append(out, wire.Deprecation{Model: d.Model, DeprecationDate: d.DeprecationDate, Replacement: d.Replacement})
	}
	return ok(w, http.StatusOK, wire.DeprecationList{Deprecations: out, Total: len(out)})
}

// syncStatus is GET /v1/pricing/sync/status. The last_* fields are about
// the network sync; mode, models, changed_models and synced_at describe
// the catalogue in force, whichever path (sync or import) put it there.
func (s *Server) syncStatus(w http.ResponseWriter, _ *http.Request) error {
	st := s.Pricing.Status()
	return ok(w, http.StatusOK, wire.SyncStatus{
		SourceURL: optText(st.SourceURL), LastAttemptAt: optTime(st.LastAttemptAt),
		LastSuccessAt: optTime(st.LastSuccessAt), LastError: optText(st.LastError),
		Models: st.Models, ChangedModels: st.ChangedModels, NextSyncAt: optTime(st.NextSyncAt),
		Mode: st.Mode, Source: st.Source, Version: st.Version, SyncedAt: optTime(st.SyncedAt),
		SourceURLs: append([]string{}, st.SourceURLs...), Disagreements: disagreements(st.Disagreements),
	})
}
