package timings

import (
	"testing"
	"time"
)

func TestMedianIsTheUpperMiddleAndLeavesItsInput(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{{[]time.Duration{5}, 5}, {[]time.Duration{3, 1, 2}, 2}, {[]time.Duration{4, 1, 3, 2}, 3}} {
		in := append([]time.Duration(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, c.want)
		}
		for i := range in {
			if c.in[i] != in[i] {
				t.Fatalf("Median sorted its input: %v", c.in)
			}
		}
	}
}

// TestPairedCancelsDrift: the plain requests slow down over the run and
// every other request costs 10 more than its pair; the overhead is the
// median paired difference, not the difference of the medians.
func TestPairedCancelsDrift(t *testing.T) {
	plain := []time.Duration{100, 100, 200, 300, 300}
	other := []time.Duration{110, 110, 210, 310, 600}
	o := Paired(plain, other)
	if o.Plain != 200 || o.Other != 210 || o.Diff != 10 || o.Percent != 5 {
		t.Errorf("Paired = %+v, want plain 200, other 210, diff 10, 5 %%", o)
	}
}

// metrics records what Report gives it.
type metrics map[string]float64

func (m metrics) ReportMetric(n float64, unit string) { m[unit] = n }

// TestReportGivesEachSideAndTheOverhead: the medians in whole µs under
// their units, the overhead in percent.
func TestReportGivesEachSideAndTheOverhead(t *testing.T) {
	o := Overhead{Plain: 2500 * time.Microsecond, Other: 2600 * time.Microsecond, Diff: 100 * time.Microsecond, Percent: 4}
	got := metrics{}
	o.Report(got, "judged")
	want := metrics{"µs/batch-plain": 2500, "µs/batch-judged": 2600, "%overhead": 4}
	if len(got) != len(want) {
		t.Fatalf("Report gave %v, want %v", got, want)
	}
	for unit, n := range want {
		if got[unit] != n {
			t.Errorf("Report gave %s = %v, want %v", unit, got[unit], n)
		}
	}
}

func TestPercentileIsTheNearestRank(t *testing.T) {
	ten := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		in      []int
		p, want int
	}{{ten, 50, 5}, {ten, 95, 10}, {ten, 90, 9}, {ten, 1, 1}, {ten, 100, 10}, {[]int{7}, 99, 7}, {[]int{1, 2}, 50, 1}, {[]int{1, 2}, 51, 2}} {
		if got := Percentile(c.in, c.p); got != c.want {
			t.Errorf("Percentile(%v, %d) = %d, want %d", c.in, c.p, got, c.want)
		}
	}
}
