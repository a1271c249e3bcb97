package wire

import "encoding/json"

// BudgetRequest is the body of PUT /v1/projects/{project_id}/budget. The
// budget stays the caller's decimal text until the handler checks it, so
// a malformed amount is refused with the field named.
type BudgetRequest struct {
	Enabled    *bool        `json:"enabled"`
	Mode       string       `json:"mode"`
	Budget     *json.Number `json:"budget"`
	Thresholds []int32      `json:"thresholds"`
}

// BudgetState is GET /v1/projects/{project_id}/budget-state: the month's
// metered spend against the budget.
type BudgetState struct {
	ProjectID          string   `json:"project_id"`
	Enabled            bool     `json:"enabled"`
	Mode               *string  `json:"mode"`
	Currency           string   `json:"currency"`
	Budget             *Money   `json:"budget"`
	SpendMTD           Money    `json:"spend_mtd"`
	Remaining          *Money   `json:"remaining"`
	UtilizationPercent *float64 `json:"utilization_percent"`
	Thresholds         []int32  `json:"thresholds"`
	ThresholdsCrossed  []int32  `json:"thresholds_crossed"`
	Exhausted          bool     `json:"exhausted"`
	PeriodEndsAt       string   `json:"period_ends_at"`
	AsOf               string   `json:"as_of"`
	// The month's projected metered spend and its range (docs/api.md
	// "Forecast"); null while the daily history cannot be read.
	ForecastMonthEnd *Money `json:"forecast_month_end"`
	ForecastLow      *Money `json:"forecast_low"`
	ForecastHigh     *Money `json:"forecast_high"`
	// ForecastExhaustedAt is the UTC date ("2006-01-02") the projected
	// spend reaches the budget; null without an enabled budget or when it
	// is not reached within the month.
	ForecastExhaustedAt *string `json:"forecast_exhausted_at"`
}

// WebhookRequest is the body of PUT /v1/projects/{project_id}/webhook:
// no url removes the webhook; no secret keeps the stored one.
type WebhookRequest struct {
	URL    *string `json:"url"`
	Secret *string `json:"secret"`
}

// Webhook is GET /v1/projects/{project_id}/webhook; it never carries the
// secret, only whether one is stored.
type Webhook struct {
	URL       *string `json:"url"`
	SecretSet bool    `json:"secret_set"`
}

// WebhookTest is POST /v1/projects/{project_id}/webhook/test: how the
// endpoint answered the test delivery.
type WebhookTest struct {
	Delivered  bool    `json:"delivered"`
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
	DurationMS int64   `json:"duration_ms"`
}

// Notification is one in-app notification.
type Notification struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"project_id"`
	Type      string          `json:"type"`
	Title     string          `json:"title"`
	Body      string          `json:"body"`
	Data      json.RawMessage `json:"data"`
	CreatedAt string          `json:"created_at"`
	ReadAt    *string         `json:"read_at"`
}

// NotificationList is GET /v1/notifications.
type NotificationList struct {
	Notifications []Notification `json:"notifications"`
	Total         int64          `json:"total"`
	Unread        int64          `json:"unread"`
}
