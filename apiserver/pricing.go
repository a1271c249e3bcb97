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

func per1K(atto int64) json.Number { return json.Number(pricing.FormatRatePer1K(atto)) }

func optPer1K(atto int64, published bool) *json.Number {
	if !published {
		return nil
	}
	n := per1K(atto)
	return &n
}

func optTokens(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := ts(t)
	return &s
}

func catalogueEntry(e pricing.Entry, updatedAt time.Time) catalogueEntryJSON {
	out := catalogueEntryJSON{
		Model: e.Model, Provider: e.Provider, Mode: e.Mode,
		InputPer1K: per1K(e.Base.Input), OutputPer1K: per1K(e.Base.Output),
		CacheReadPer1K:    optPer1K(e.Base.CacheRead, e.Base.HasCacheRead),
		CacheWritePer1K:   optPer1K(e.Base.CacheWrite, e.Base.HasCacheWrite),
		CacheWrite1hPer1K: optPer1K(e.Base.CacheWrite1h, e.Base.HasCacheWrite1h),
		MaxInputTokens:    optTokens(e.MaxInputTokens), MaxOutputTokens: optTokens(e.MaxOutputTokens),
		DeprecationDate: optText(e.DeprecationDate), Replacement: optText(e.Replacement),
		Source: e.Source, UpdatedAt: ts(updatedAt),
	}
	if t := e.LongContext; t != nil {
		r, _ := e.EffectiveRates(t.ThresholdTokens + 1)
		out.LongContext = &longContextJSON{ThresholdTokens: t.ThresholdTokens,
			InputPer1K: per1K(r.Input), OutputPer1K: per1K(r.Output),
			CacheReadPer1K:    optPer1K(r.CacheRead, r.HasCacheRead),
			CacheWritePer1K:   optPer1K(r.CacheWrite, r.HasCacheWrite),
			CacheWrite1hPer1K: optPer1K(r.CacheWrite1h, r.HasCacheWrite1h)}
	}
	return out
}

// listPricing is GET /v1/pricing: every model, sorted by name; the optional
// provider parameter keeps one provider's models.
func (s *Server) listPricing(w http.ResponseWriter, r *http.Request) {
	cat := s.Catalogue.Load()
	provider := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("provider")))
	models := []catalogueEntryJSON{}
	for _, e := range cat.Entries() {
		if provider == "" || e.Provider == provider {
			models = append(models, catalogueEntry(e, s.Pricing.UpdatedAt(e.Model)))
		}
	}
	st := s.Pricing.Status()
	ok(w, http.StatusOK, map[string]any{"models": models, "total": len(models), "source": cat.Source(),
		"version": cat.Version(), "synced_at": optTime(st.SyncedAt)})
}

// modelPricing is GET /v1/pricing/{model_name}: the name as a client sends
// it (provider prefixes, dates, any case), raw or URL-encoded.
func (s *Server) modelPricing(w http.ResponseWriter, r *http.Request) {
	name := mux.Vars(r)["model_name"]
	cat := s.Catalogue.Load()
	e, found := cat.Lookup(name)
	if !found {
		s.fail(w, r, unknownModel(cat, "model", name))
		return
	}
	ok(w, http.StatusOK, catalogueEntry(e, s.Pricing.UpdatedAt(e.Model)))
}

// pricingVersion is GET /v1/pricing/versions/{version}: the catalogue an
// event's price_version names, or with ?model= the one entry that priced
// that model. Entries show the version's creation as updated_at. The
// mirror keeps no versions.
func (s *Server) pricingVersion(w http.ResponseWriter, r *http.Request) {
	version := mux.Vars(r)["version"]
	if s.Mirror {
		s.fail(w, r, apierr.New(apierr.NotFound, "price versions are kept by the origin, not the mirror"))
		return
	}
	cat, created, err := s.DB.CatalogueVersion(r.Context(), version)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	entries := cat.Entries()
	if model := r.URL.Query().Get("model"); model != "" {
		e, found := cat.Lookup(model)
		if !found {
			s.fail(w, r, unknownModel(cat, "model", model))
			return
		}
		entries = []pricing.Entry{e}
	}
	models := make([]catalogueEntryJSON, len(entries))
	for i, e := range entries {
		models[i] = catalogueEntry(e, created)
	}
	ok(w, http.StatusOK, map[string]any{"version": cat.Version(), "source": cat.Source(),
		"created_at": ts(created), "models": models, "total": len(models)})
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

type deprecationJSON struct {
	Model           string `json:"model"`
	DeprecationDate string `json:"deprecation_date"`
	Replacement     string `json:"replacement,omitempty"`
}

// deprecations is GET /v1/pricing/deprecations, by date then model.
func (s *Server) deprecations(w http.ResponseWriter, _ *http.Request) {
	out := []deprecationJSON{}
	for _, d := range s.Catalogue.Load().Deprecations() {
		out = append(out, deprecationJSON{d.Model, d.DeprecationDate, d.Replacement})
	}
	ok(w, http.StatusOK, map[string]any{"deprecations": out, "total": len(out)})
}

// syncStatus is GET /v1/pricing/sync/status. The last_* fields are about
// the network sync; mode, models, changed_models and synced_at describe
// the catalogue in force, whichever path (sync or import) put it there.
func (s *Server) syncStatus(w http.ResponseWriter, _ *http.Request) {
	st := s.Pricing.Status()
	ok(w, http.StatusOK, map[string]any{
		"source_url": optText(st.SourceURL), "last_attempt_at": optTime(st.LastAttemptAt),
		"last_success_at": optTime(st.LastSuccessAt), "last_error": optText(st.LastError),
		"models": st.Models, "changed_models": st.ChangedModels, "next_sync_at": optTime(st.NextSyncAt),
		"mode": st.Mode, "source": st.Source, "version": st.Version, "synced_at": optTime(st.SyncedAt),
	})
}
