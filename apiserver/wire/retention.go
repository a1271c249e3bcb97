package wire

// Retention is GET and PUT /v1/projects/{project_id}/retention: how long
// the project's raw calls and rollups are kept (docs/scale.md,
// "Retention").
type Retention struct {
	// RawDays and RollupDays are the project's own settings in days; null
	// takes the deployment's.
	RawDays    *int `json:"raw_days"`
	RollupDays *int `json:"rollup_days"`
	// DefaultRawDays and DefaultRollupDays are the deployment's; null
	// keeps forever.
	DefaultRawDays    *int `json:"default_raw_days"`
	DefaultRollupDays *int `json:"default_rollup_days"`
	// RawExpiredBefore is the instant before which the project's raw
	// calls have expired now; null: none has.
	RawExpiredBefore *string `json:"raw_expired_before"`
	// RollupExpiredBefore is the UTC midnight before which its rollups,
	// run totals and month counters have expired (a report's window starts
	// there at the earliest); null: none has.
	RollupExpiredBefore *string `json:"rollup_expired_before"`
}

// RetentionRequest is PUT /v1/projects/{project_id}/retention: both
// settings replaced, each 1 to 3650 days or null (the deployment's).
type RetentionRequest struct {
	RawDays    *int `json:"raw_days"`
	RollupDays *int `json:"rollup_days"`
}
