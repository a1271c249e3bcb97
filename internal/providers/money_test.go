package providers

import "testing"

func TestAmountNano(t *testing.T) {
	cases := []struct {
		in, exp string
		want    int64
		bad     bool
	}{
		{"123.45", "-2", 1_234_500_000, false}, // $1.2345 in cents
		{"123.78912", "-2", 1_237_891_200, false},
		{"0.00000004", "-2", 0, false}, // under half a nano-dollar
		{"0.00000005", "-2", 1, false}, // half rounds up
		{"1.5e1", "-2", 150_000_000, false},
		{"-12.5", "-2", -125_000_000, false}, // a credit line
		{"0.06", "", 60_000_000, false},
		{"6e-2", "", 60_000_000, false},
		{"1E+3", "", 1_000_000_000_000, false},
		{"", "", 0, true},
		{"NaN", "", 0, true},
		{"0x10", "", 0, true},
	}
	for _, c := range cases {
		got, err := amountNano(c.in, c.exp)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("amountNano(%q, %q) = %d, %v; want %d (error %v)", c.in, c.exp, got, err, c.want, c.bad)
		}
	}
}
