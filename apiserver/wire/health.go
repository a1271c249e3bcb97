package wire

// Health is GET /v1/health.
type Health struct {
	Status    string `json:"status"`
	Version   string `json:"version"`
	Timestamp string `json:"timestamp"`
	// Mergers is how far each asynchronous merger is behind ingest over
	// the deployment (absent on a mirror).
	Mergers map[string]MergerLag `json:"mergers,omitempty"`
}

// MergerLag is one merger's backlog: calls for the rollups, runs for
// the run merger, queued rows for the alert drain; lag_seconds is the age
// of the oldest item waiting (0 when none waits).
type MergerLag struct {
	Backlog    int64   `json:"backlog"`
	LagSeconds float64 `json:"lag_seconds"`
}
