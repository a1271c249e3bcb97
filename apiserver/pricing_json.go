package apiserver

import (
	"encoding/json"
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
