package alerts

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

func TestReachedIsExact(t *testing.T) {
	cases := []struct {
		budget, spend int64
		want          string
	}{
		{1000, 499, "[]"}, {1000, 500, "[50]"}, {1000, 799, "[50]"}, {1000, 1000, "[50 80 100]"},
		{3, 2, "[50]"}, // 2/3 = 66.7 %
		{9_000_000_000_000_000_000, 9_000_000_000_000_000_000, "[50 80 100]"}, // no overflow
	}
	for _, c := range cases {
		if got := fmt.Sprint(Reached(c.budget, []int32{50, 80, 100}, c.spend)); got != c.want && !(got == "[]" && c.want == "[]") {
			t.Errorf("Reached(%d, %d) = %s, want %s", c.budget, c.spend, got, c.want)
		}
	}
}

func TestUtilizationAndPeriod(t *testing.T) {
	for _, c := range []struct {
		spend, budget int64
		want          float64
	}{{1, 3, 33.33}, {2, 3, 66.67}, {105, 100, 105}, {0, 7, 0},
		// The project bound (2^62 nano) against a one nano-dollar budget:
		// 2^62 × 100 percent, past int64 in hundredths of a percent.
		{1 << 62, 1, 4.611686018427388e20}} {
		if got := Utilization(c.spend, c.budget); got != c.want {
			t.Errorf("Utilization(%d, %d) = %v, want %v", c.spend, c.budget, got, c.want)
		}
	}
	m := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if got := PeriodEnd(m); !got.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("PeriodEnd = %s", got)
	}
}

func TestByProjectGroupsEachProjectOnce(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"a", "a:1"}, {"aab", "a:2 b:1"}, {"aba", "a:2 b:1"}, {"cbcab", "a:1 b:2 c:2"},
	} {
		var evs []event.Event
		for i, p := range c.in {
			evs = append(evs, event.Event{ProjectID: string(p), EventID: fmt.Sprint(i)})
		}
		var got []string
		for p, es := range byProject(evs) {
			got = append(got, fmt.Sprintf("%s:%d", p, len(es)))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("byProject(%q) = %v, want %s", c.in, got, c.want)
		}
	}
}
