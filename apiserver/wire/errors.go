package wire

// RateLimited is the body of a 429: what was exceeded and when to retry.
type RateLimited struct {
	Detail     string `json:"detail"`
	RetryAfter int    `json:"retry_after"`
	Limit      int    `json:"limit"`
	Period     int    `json:"period"`
}
