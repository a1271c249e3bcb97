package wire

// Forecast is GET /v1/analytics/forecast: the month's metered spend so
// far, its projection to the month's end with a range, and the days both
// rest on (docs/api.md "Forecast").
type Forecast struct {
	ProjectID string `json:"project_id"`
	Currency  string `json:"currency"`
	// Month is the UTC month, "2006-01".
	Month        string `json:"month"`
	PeriodEndsAt string `json:"period_ends_at"`
	Budget       *Money `json:"budget"`
	SpendMTD     Money  `json:"spend_mtd"`
	// SpendToday is today's metered spend so far.
	SpendToday       Money `json:"spend_today"`
	ForecastMonthEnd Money `json:"forecast_month_end"`
	ForecastLow      Money `json:"forecast_low"`
	ForecastHigh     Money `json:"forecast_high"`
	// ForecastExhaustedAt is the UTC date ("2006-01-02") the projected
	// spend reaches the budget; null without a budget or when it is not
	// reached within the month.
	ForecastExhaustedAt *string        `json:"forecast_exhausted_at"`
	ExceedsBudget       bool           `json:"exceeds_budget"`
	Method              ForecastMethod `json:"method"`
	// History is the metered spend of each complete day the forecast
	// read (the month's and the trailing window's), oldest first.
	History []SpendDayRow `json:"history"`
	// Projection is the expected spend of each remaining day, today first.
	Projection []SpendDayRow `json:"projection"`
	AsOf       string        `json:"as_of"`
}

// ForecastMethod is what the projection rests on: the typical day of
// each kind and its range.
type ForecastMethod struct {
	WindowDays    int   `json:"window_days"`
	HistoryDays   int   `json:"history_days"`
	WeekdayMedian Money `json:"weekday_median"`
	WeekdayLow    Money `json:"weekday_low"`
	WeekdayHigh   Money `json:"weekday_high"`
	WeekendMedian Money `json:"weekend_median"`
	WeekendLow    Money `json:"weekend_low"`
	WeekendHigh   Money `json:"weekend_high"`
}

// SpendDayRow is the metered spend of one UTC day ("2006-01-02").
type SpendDayRow struct {
	Day   string `json:"day"`
	Spend Money  `json:"spend"`
}

// AnomalyList is GET /v1/analytics/anomalies: the anomalous days of the
// window, of the project and of each agent, oldest first.
type AnomalyList struct {
	ProjectID string       `json:"project_id"`
	Range     string       `json:"range"`
	StartTime string       `json:"start_time"`
	EndTime   string       `json:"end_time"`
	Anomalies []AnomalyRow `json:"anomalies"`
	Total     int          `json:"total"`
	Rule      AnomalyRule  `json:"rule"`
}

// AnomalyRow is one anomalous day of one scope: the project's spend
// (scope "project", agent_name null) or one agent's (scope "agent").
type AnomalyRow struct {
	Day            string  `json:"day"`
	Scope          string  `json:"scope"`
	AgentName      *string `json:"agent_name"`
	Spend          Money   `json:"spend"`
	BaselineMedian Money   `json:"baseline_median"`
	BaselineSpread Money   `json:"baseline_spread"`
	Threshold      Money   `json:"threshold"`
	BaselineDays   int     `json:"baseline_days"`
}

// AnomalyRule states the rule's constants.
type AnomalyRule struct {
	WindowDays         int   `json:"window_days"`
	MinBaselineDays    int   `json:"min_baseline_days"`
	K                  int   `json:"k"`
	SpreadFloorPercent int   `json:"spread_floor_percent"`
	MinRatio           int   `json:"min_ratio"`
	MinSpend           Money `json:"min_spend"`
}
