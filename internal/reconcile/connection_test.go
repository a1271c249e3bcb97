package reconcile

import "testing"

func TestBasisPoints(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"2", 200, true}, {"0", 0, true}, {"0.5", 50, true}, {"12.25", 1225, true}, {"100", 10000, true},
		{"1.234", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1e2", 0, false}, {"", 0, false}, {".5", 0, false},
		{"1.", 100, true},
	}
	for _, c := range cases {
		if got, ok := ParseBasisPoints(c.in); got != c.want || ok != c.ok {
			t.Errorf("ParseBasisPoints(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for bp, want := range map[int]string{200: "2", 150: "1.5", 1225: "12.25", 5: "0.05", 0: "0", 10000: "100"} {
		if got := FormatBasisPoints(bp); got != want {
			t.Errorf("FormatBasisPoints(%d) = %q, want %q", bp, got, want)
		}
	}
}
