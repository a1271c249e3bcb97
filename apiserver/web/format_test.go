package web

import (
	"encoding/json"
	"testing"
)

func TestFormat(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"usd dollars", USD(json.Number("1234.5")), "$1,234.50"},
		{"usd millions", USD(json.Number("1234567.891")), "$1,234,567.89"},
		{"usd cents", USD(json.Number("0.25")), "$0.25"},
		{"usd small call", USD(json.Number("0.000412345")), "$0.0004123"},
		{"usd tiny", USD(json.Number("0.000000007")), "$0.000000007"},
		{"usd zero", USD(json.Number("0")), "$0.00"},
		{"usd null", USD((*string)(nil)), "—"},
		{"usd null number", USD((*json.Number)(nil)), "—"},
		{"usd number pointer", USD(func() *json.Number { n := json.Number("0.5"); return &n }()), "$0.50"},
		{"usd pointer", USD(s("2")), "$2.00"},
		{"usd negative", USD(json.Number("-3.5")), "-$3.50"},
		{"pct", Percent(f(97.54)), "97.5%"},
		{"pct whole", Percent(f(100)), "100%"},
		{"pct null", Percent((*float64)(nil)), "—"},
		{"count", Count(int64(1234567)), "1,234,567"},
		{"count small", Count(int64(12)), "12"},
		{"decimal", Decimal(1, f(2.345)), "2.3"},
		{"decimal null", Decimal(2, (*float64)(nil)), "—"},
		{"ms", Millis(f(412.4)), "412 ms"},
		{"ms of an int", Millis(func() *int64 { n := int64(250); return &n }()), "250 ms"},
		{"ms null", Millis((*int64)(nil)), "—"},
		{"seconds", Millis(f(2345)), "2.3 s"},
		{"change up", Change(f(12.5)), "▲ 12.5%"},
		{"change down", Change(f(-3)), "▼ 3%"},
		{"change flat", Change(f(0)), "= 0%"},
		{"change new", Change((*float64)(nil)), "new"},
		{"trend up", Trend(f(3)), "up"},
		{"trend down", Trend(f(-3)), "down"},
		{"trend new", Trend((*float64)(nil)), ""},
		{"when", When("2026-11-22T18:05:09.5Z"), "2026-11-22 18:05 UTC"},
		{"day", Day("2026-11-22T00:00:00Z"), "Nov 22"},
		{"hour", Day("2026-11-22T13:00:00Z"), "13:00"},
		{"tick of a day", Tick("2026-11-22T13:00:00Z", "24h"), "13:00"},
		{"tick of a week", Tick("2026-11-22T13:00:00Z", "7d"), "Nov 22"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
