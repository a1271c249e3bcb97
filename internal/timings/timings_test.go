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
