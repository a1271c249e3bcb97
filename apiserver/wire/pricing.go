package wire

import "encoding/json"

// CatalogueEntry is one model of the catalogue. Rates are USD per 1000
// tokens written from the exact integers; a null cache rate is not
// published by the provider (such tokens are billed at the input rate, or a
// 1-hour write at the 5-minute write rate).
type CatalogueEntry struct {
	Model             string       `json:"model"`
	Provider          string       `json:"provider"`
	Mode              string       `json:"mode"`
	InputPer1K        json.Number  `json:"input_per_1k"`
	OutputPer1K       json.Number  `json:"output_per_1k"`
	CacheReadPer1K    *json.Number `json:"cache_read_per_1k"`
	CacheWritePer1K   *json.Number `json:"cache_write_per_1k"`
	CacheWrite1hPer1K *json.Number `json:"cache_write_1h_per_1k"`
	LongContext       *LongContext `json:"long_context"`
	MaxInputTokens    *int64       `json:"max_input_tokens"`
	MaxOutputTokens   *int64       `json:"max_output_tokens"`
	DeprecationDate   *string      `json:"deprecation_date"`
	Replacement       *string      `json:"replacement"`
	Source            string       `json:"source"`
	UpdatedAt         string       `json:"updated_at"`
	// Period is the rate period in force now (null for a model with one
	// price); Periods lists every dated or time-of-day rate, oldest first.
	Period   *string     `json:"period"`
	Periods  []Period    `json:"periods"`
	Aliases  []Alias     `json:"aliases"`
	Resolved *Resolution `json:"resolved,omitempty"`
}

// LongContext is the tier that prices a whole call whose prompt
// exceeds threshold_tokens: the rates in force above it.
type LongContext struct {
	ThresholdTokens   int64        `json:"threshold_tokens"`
	InputPer1K        json.Number  `json:"input_per_1k"`
	OutputPer1K       json.Number  `json:"output_per_1k"`
	CacheReadPer1K    *json.Number `json:"cache_read_per_1k"`
	CacheWritePer1K   *json.Number `json:"cache_write_per_1k"`
	CacheWrite1hPer1K *json.Number `json:"cache_write_1h_per_1k"`
}

// Catalogue is GET /v1/pricing: the catalogue in force.
type Catalogue struct {
	Models   []CatalogueEntry `json:"models"`
	Total    int              `json:"total"`
	Source   string           `json:"source"`
	Version  string           `json:"version"`
	SyncedAt *string          `json:"synced_at"`
}

// CatalogueVersion is GET /v1/pricing/versions/{version}: a stored catalogue.
type CatalogueVersion struct {
	Version   string           `json:"version"`
	Source    string           `json:"source"`
	CreatedAt string           `json:"created_at"`
	Models    []CatalogueEntry `json:"models"`
	Total     int              `json:"total"`
}

// Deprecation is one model with a deprecation date, and its replacement
// when known.
type Deprecation struct {
	Model           string `json:"model"`
	DeprecationDate string `json:"deprecation_date"`
	Replacement     string `json:"replacement,omitempty"`
}

// DeprecationList is GET /v1/pricing/deprecations.
type DeprecationList struct {
	Deprecations []Deprecation `json:"deprecations"`
	Total        int           `json:"total"`
}

// SyncStatus is GET /v1/pricing/sync/status.
type SyncStatus struct {
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
	SourceURLs    []string       `json:"source_urls"`
	Disagreements []Disagreement `json:"disagreements"`
}

// Disagreement is one rate two sources price differently beyond the
// tolerance (USD per 1000 tokens by source); the model kept its price.
type Disagreement struct {
	Model  string                 `json:"model"`
	Field  string                 `json:"field"`
	Values map[string]json.Number `json:"values"`
}

// Period is one dated or time-of-day rate of an entry: in force from
// "from" (inclusive) until "until" (exclusive), null = open; inside the
// daily UTC window when time_of_day is set.
type Period struct {
	ID          string       `json:"id"`
	Label       *string      `json:"label"`
	From        *string      `json:"from"`
	Until       *string      `json:"until"`
	TimeOfDay   *TimeOfDay   `json:"time_of_day"`
	InputPer1K  json.Number  `json:"input_per_1k"`
	OutputPer1K json.Number  `json:"output_per_1k"`
	CacheRead   *json.Number `json:"cache_read_per_1k"`
	CacheWrite  *json.Number `json:"cache_write_per_1k"`
	CacheWrite1 *json.Number `json:"cache_write_1h_per_1k"`
	LongContext *LongContext `json:"long_context"`
}

// TimeOfDay is a daily window in UTC, "HH:MM" to "HH:MM" (end
// exclusive; it wraps midnight when start > end).
type TimeOfDay struct {
	Start        string `json:"start"`
	End          string `json:"end"`
	WeekdaysOnly bool   `json:"weekdays_only"`
}

// Alias is another name of a catalogue entry; retired is the date after
// which the name no longer resolves, when it has one.
type Alias struct {
	Name    string  `json:"name"`
	Retired *string `json:"retired"`
}

// Resolution says which entry a requested name resolved to, and how.
type Resolution struct {
	Requested  string `json:"requested"`
	Model      string `json:"model"`
	Via        string `json:"via"`
	Deprecated bool   `json:"deprecated"`
}

// SkippedModel is one model a price import left out, and why.
type SkippedModel struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// Import is the report of a price import.
type Import struct {
	Imported      int            `json:"imported"`
	Skipped       []SkippedModel `json:"skipped"`
	ChangedModels []string       `json:"changed_models"`
	Version       string         `json:"version"`
	Models        int            `json:"models"`
}

// RepriceRequest is the body of POST /v1/pricing/reprice: the window,
// optionally one project and some models, and whether only to report.
type RepriceRequest struct {
	Start     string   `json:"start"`
	End       string   `json:"end"`
	ProjectID string   `json:"project_id"`
	Models    []string `json:"models"`
	DryRun    *bool    `json:"dry_run"`
}

// RepriceChange is what re-pricing changes for one model.
type RepriceChange struct {
	Model    string `json:"model"`
	Events   int64  `json:"events"`
	OldTotal Money  `json:"old_total"`
	NewTotal Money  `json:"new_total"`
}

// Reprice is the report of a re-pricing (or its dry run).
type Reprice struct {
	DryRun bool  `json:"dry_run"`
	Events int64 `json:"events"`
	// EventsRefused are left as they were: their new price would pass the
	// per-call bounds (docs/api.md, Bounds).
	EventsRefused int64           `json:"events_refused"`
	OldTotal      Money           `json:"old_total"`
	NewTotal      Money           `json:"new_total"`
	Changes       []RepriceChange `json:"changes"`
	PriceVersion  string          `json:"price_version"`
	Start         string          `json:"start"`
	End           string          `json:"end"`
}
