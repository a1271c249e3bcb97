package web

import (
	"testing"

	"github.com/llmcost/llmcost/apiserver/wire"
)

func TestFormat(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	usd := func(s string) wire.Money {
		var m wire.Money
		if err := m.UnmarshalJSON([]byte(s)); err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"usd dollars", USD(usd("1234.5")), "$1,234.50"},
		{"usd millions", USD(usd("1234567.891")), "$1,234,567.89"},
		{"usd cents", USD(usd("0.25")), "$0.25"},
		{"usd small call", USD(usd("0.000412345")), "$0.0004123"},
		{"usd tiny", USD(usd("0.000000007")), "$0.000000007"},
		{"usd zero", USD(usd("0")), "$0.00"},
		{"usd null", OptUSD(nil), "—"},
		{"usd pointer", OptUSD(func() *wire.Money { m := usd("0.5"); return &m }()), "$0.50"},
		{"usd axis", Dollars(2), "$2.00"},
		{"usd negative", USD(usd("-3.5")), "-$3.50"},
		{"pct", Percent(f(97.54)), "97.5%"},
		{"pct whole", Percent(f(100)), "100%"},
		{"pct null", Percent(nil), "—"},
		{"count", Count(int64(1234567)), "1,234,567"},
		{"count small", Count(int64(12)), "12"},
		{"decimal", Decimal(1, f(2.345)), "2.3"},
		{"decimal null", Decimal(2, nil), "—"},
		{"ms", OptMillis(f(412.4)), "412 ms"},
		{"ms of an int", OptIntMillis(func() *int64 { n := int64(250); return &n }()), "250 ms"},
		{"ms null", OptIntMillis(nil), "—"},
		{"seconds", Millis(2345), "2.3 s"},
		{"duration", IntMillis(2345), "2.3 s"},
		{"change up", Change(f(12.5)), "▲ 12.5%"},
		{"change down", Change(f(-3)), "▼ 3%"},
		{"change flat", Change(f(0)), "= 0%"},
		{"change new", Change(nil), "new"},
		{"trend up", Trend(f(3)), "up"},
		{"trend down", Trend(f(-3)), "down"},
		{"trend new", Trend(nil), ""},
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
