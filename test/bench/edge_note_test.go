package bench

import (
	"strings"
	"testing"
	"time"
)

// TestEdgeNote: the minutes a report reads raw (the fewer side of the
// first partial hour) at both ends of a run, one crossing an hour.
func TestEdgeNote(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 11, 23, h, m, 30, 0, time.UTC) }
	for _, c := range []struct {
		start, end, anchor time.Time
		want               string
	}{
		{at(12, 5), at(12, 8), at(10, 46), "5 at the start, 8 at the end (the dataset ends at its anchor, 10:46)"},
		{at(12, 58), at(13, 2), at(10, 46), "2 at the start, 2 at the end "},
		{at(11, 10), at(11, 40), at(11, 4), "10 at the start, 20 at the end "},
	} {
		if got := edgeNote(c.start, c.end, c.anchor); !strings.Contains(got, c.want) {
			t.Errorf("edgeNote(%s, %s, %s) = %q, want %q in it", c.start, c.end, c.anchor, got, c.want)
		}
	}
}
