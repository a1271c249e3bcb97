package apiserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

// catalogueJSON is GET /v1/pricing: the catalogue in force.
type catalogueJSON struct {
	Models   []catalogueEntryJSON `json:"models"`
	Total    int                  `json:"total"`
	Source   string               `json:"source"`
	Version  string               `json:"version"`
	SyncedAt *string              `json:"synced_at"`
}

// versionJSON is GET /v1/pricing/versions/{version}: a stored catalogue.
type versionJSON struct {
	Version   string               `json:"version"`
	Source    string               `json:"source"`
	CreatedAt string               `json:"created_at"`
	Models    []catalogueEntryJSON `json:"models"`
	Total     int                  `json:"total"`
}

type deprecationJSON struct {
	Model           string `json:"model"`
	DeprecationDate string `json:"deprecation_date"`
	Replacement     string `json:"replacement,omitempty"`
}

// deprecationsJSON is GET /v1/pricing/deprecations.
type deprecationsJSON struct {
	Deprecations []deprecationJSON `json:"deprecations"`
	Total        int               `json:"total"`
}

// syncStatusJSON is GET /v1/pricing/sync/status.
type syncStatusJSON struct {
	SourceURL     *string  `json:"source_url"`
	LastAttemptAt *string  `json:"last_attempt_at"`
	LastSuccessAt *string  `json:"last_success_at"`
	LastError     *string  `json:"last_error"`
	Models        int      `json:"models"`
	ChangedModels []string `json:"changed_models"`
	NextSyncAt    *string  `json:"next_sync_at"`
	Mode          string   `json:"mode"`
	Source        string   `json:"source"`
	Version       string   `json:"version"`
	SyncedAt      *string  `json:"synced_at"`
	// SourceURLs are every configured source, the primary first;
	// Disagreements the rates on which they differed at the last sync.
	SourceURLs    []string           `json:"source_urls"`
	Disagreements []disagreementJSON `json:"disagreements"`
}

// disagreementJSON is one rate two sources price differently beyond the
// tolerance (USD per 1000 tokens by source); the model kept its price.
type disagreementJSON struct {
	Model  string                 `json:"model"`
	Field  string                 `json:"field"`
	Values map[string]json.Number `json:"values"`
}

func disagreements(dis []pricing.Disagreement) []disagreementJSON {
	out := make([]disagreementJSON, 0, len(dis))
	for _, d := range dis {
		v := make(map[string]json.Number, len(d.Values))
		for src, atto := range d.Values {
			v[src] = per1K(atto)
		}
		out = append(out, disagreementJSON{Model: d.Model, Field: d.Field, Values: v})
	}
	return out
}

// periodJSON is one dated or time-of-day rate of an entry: in force from
// "from" (inclusive) until "until" (exclusive), null = open; inside the
// daily UTC window when time_of_day is set.
type periodJSON struct {
	ID          string           `json:"id"`
	Label       *string          `json:"label"`
	From        *string          `json:"from"`
	Until       *string          `json:"until"`
	TimeOfDay   *timeOfDayJSON   `json:"time_of_day"`
	InputPer1K  json.Number      `json:"input_per_1k"`
	OutputPer1K json.Number      `json:"output_per_1k"`
	CacheRead   *json.Number     `json:"cache_read_per_1k"`
	CacheWrite  *json.Number     `json:"cache_write_per_1k"`
	CacheWrite1 *json.Number     `json:"cache_write_1h_per_1k"`
	LongContext *longContextJSON `json:"long_context"`
}

// timeOfDayJSON is a daily window in UTC, "HH:MM" to "HH:MM" (end
// exclusive; it wraps midnight when start > end).
type timeOfDayJSON struct {
	Start        string `json:"start"`
	End          string `json:"end"`
	WeekdaysOnly bool   `json:"weekdays_only"`
}

type aliasJSON struct {
	Name    string  `json:"name"`
	Retired *string `json:"retired"`
}

// resolutionJSON says which entry a requested name resolved to, and how.
type resolutionJSON struct {
	Requested  string `json:"requested"`
	Model      string `json:"model"`
	Via        string `json:"via"`
	Deprecated bool   `json:"deprecated"`
}

// periods lists an entry's base rates (id "base") and its periods; empty
// for a model with one price.
func periods(e pricing.Entry) []periodJSON {
	out := []periodJSON{}
	if len(e.Periods) == 0 {
		return out
	}
	all := append([]pricing.Period{{Label: "before or outside every period", Base: e.Base, LongContext: e.LongContext}}, e.Periods...)
	for i, p := range all {
		at := pricing.Entry{Base: p.Base, LongContext: p.LongContext}
		j := periodJSON{ID: p.ID(), Label: optText(p.Label), From: optTime(p.From), Until: optTime(p.Until),
			InputPer1K: per1K(p.Base.Input), OutputPer1K: per1K(p.Base.Output),
			CacheRead:   optPer1K(p.Base.CacheRead, p.Base.HasCacheRead),
			CacheWrite:  optPer1K(p.Base.CacheWrite, p.Base.HasCacheWrite),
			CacheWrite1: optPer1K(p.Base.CacheWrite1h, p.Base.HasCacheWrite1h), LongContext: longContext(at)}
		if i == 0 {
			j.ID = pricing.BasePeriod
		}
		if p.HasWindow {
			j.TimeOfDay = &timeOfDayJSON{Start: hhmm(p.DayStart), End: hhmm(p.DayEnd), WeekdaysOnly: p.WeekdaysOnly}
		}
		out = append(out, j)
	}
	return out
}

func hhmm(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

func aliases(e pricing.Entry) []aliasJSON {
	out := []aliasJSON{}
	for _, a := range e.Aliases {
		out = append(out, aliasJSON{Name: a.Name, Retired: optText(a.Retired)})
	}
	return out
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
