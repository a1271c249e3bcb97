package agentview

import (
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/pricing"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestDays(t *testing.T) {
	cases := []struct {
		name       string
		start, end string
		want       int
		first      string
	}{
		{"7d ending mid-day touches 8 days", "2026-11-15T17:30:00Z", "2026-11-22T17:30:00Z", 8, "2026-11-15T00:00:00Z"},
		{"7d ending at midnight touches 7", "2026-11-15T00:00:00Z", "2026-11-22T00:00:00Z", 7, "2026-11-15T00:00:00Z"},
		{"30d", "2026-10-23T09:00:00Z", "2026-11-22T09:00:00Z", 31, "2026-10-23T00:00:00Z"},
		{"1h inside one day", "2026-11-22T16:30:00Z", "2026-11-22T17:30:00Z", 1, "2026-11-22T00:00:00Z"},
		{"1h across midnight", "2026-11-21T23:30:00Z", "2026-11-22T00:30:00Z", 2, "2026-11-21T00:00:00Z"},
		{"empty", "2026-11-22T00:00:00Z", "2026-11-22T00:00:00Z", 0, ""},
	}
	for _, c := range cases {
		got := Days(analytics.Span{Start: ts(c.start), End: ts(c.end)})
		if len(got) != c.want || (c.want > 0 && !got[0].Equal(ts(c.first))) {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

func TestDailySeriesZeroFills(t *testing.T) {
	w := analytics.Span{Start: ts("2026-11-20T12:00:00Z"), End: ts("2026-11-22T12:00:00Z")}
	got := DailySeries(w, []Day{
		{Day: ts("2026-11-21T00:00:00Z"), CostNano: 5, Calls: 2, FailedCostNano: 1},
		{Day: ts("2026-11-01T00:00:00Z"), CostNano: 99}, // outside: dropped
	})
	want := []Day{{Day: ts("2026-11-20T00:00:00Z")}, {Day: ts("2026-11-21T00:00:00Z"), CostNano: 5, Calls: 2, FailedCostNano: 1},
		{Day: ts("2026-11-22T00:00:00Z")}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if !got[i].Day.Equal(want[i].Day) || got[i].CostNano != want[i].CostNano || got[i].Calls != want[i].Calls ||
			got[i].FailedCostNano != want[i].FailedCostNano {
			t.Errorf("#%d %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestChangePercentAndCachedShare(t *testing.T) {
	if ChangePercent(10, 0) != nil {
		t.Error("no previous spend must give null")
	}
	if v := ChangePercent(150, 100); v == nil || *v != 50 {
		t.Errorf("up: %v", v)
	}
	if v := ChangePercent(1, 3); v == nil || *v != -66.67 {
		t.Errorf("down: %v", v)
	}
	cat := pricing.Builtin()
	if v := ModelCachedShare(cat, "claude-haiku-4-5", 1, 3); v == nil || *v != 33.33 {
		t.Errorf("haiku: %v", v)
	}
	if v := ModelCachedShare(cat, "gpt-4-turbo", 1, 3); v != nil {
		t.Errorf("no published cache-read rate must give null, got %v", *v)
	}
	if v := ModelCachedShare(cat, "in-house-7b", 1, 3); v != nil {
		t.Errorf("unknown model must give null, got %v", *v)
	}
}
