package bench

import "testing"

// TestSpreadOf: the median of the runs (the upper middle one of an even
// count) and their range, whatever order they come in.
func TestSpreadOf(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want spread
	}{
		{[]float64{0.7}, spread{0.7, 0.7, 0.7}},
		{[]float64{0.83, 0.61, 0.73}, spread{0.73, 0.61, 0.83}},
		{[]float64{1.17, 0.62, 0.89, 0.73, 0.64}, spread{0.73, 0.62, 1.17}},
		{[]float64{0.5, 0.9, 0.6, 0.8}, spread{0.8, 0.5, 0.9}},
	} {
		if got := spreadOf(c.in); got != c.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
