package wire

// TagsRequest is the body of PUT /v1/projects/{project_id}/tags: the
// project's declared tag keys, replacing the ones declared before.
type TagsRequest struct {
	Keys []string `json:"keys"`
}

// TagKey is one declared tag key.
type TagKey struct {
	Key string `json:"key"`
	// Dimension is the key's dimension of /v1/analytics/by/{dimension}
	// and the name of its report filter: tag.<key>.
	Dimension  string `json:"dimension"`
	DeclaredAt string `json:"declared_at"`
	// Backfilling: the calls stored before the declaration are still
	// being counted, so the key's reports do not include all of them yet.
	Backfilling bool `json:"backfilling"`
	// Values counts the distinct values reported under their own name;
	// OverflowCalls the calls counted under (other) because the key had
	// max_values values already.
	Values        int   `json:"values"`
	OverflowCalls int64 `json:"overflow_calls"`
}

// TagList is GET (and the answer of PUT) /v1/projects/{project_id}/tags:
// the declared keys and the limits they live under.
type TagList struct {
	Keys           []TagKey `json:"keys"`
	MaxKeys        int      `json:"max_keys"`
	MaxValues      int      `json:"max_values"`
	MaxValueLength int      `json:"max_value_length"`
}
