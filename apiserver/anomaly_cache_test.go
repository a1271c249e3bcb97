package apiserver

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
)

// Windows that touch the same UTC days share one judgement, of those whole
// days; a window that touches another day, or another project, is judged
// on its own. (The caching itself is internal/swr's, tested there.)
func TestSignalsAreJudgedPerProjectAndDays(t *testing.T) {
	now := time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC)
	var judged []analytics.Span
	s := &Server{Deps: Deps{Now: func() time.Time { return now }}}
	s.signals = newSignalCache(func(_ context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error) {
		judged = append(judged, w)
		return []anomaly.Scoped{{Agent: project}}, nil
	})
	day := func(d int) time.Time { return time.Date(2026, time.June, d, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		project    string
		start, end time.Time
		judges     int // judgements made so far
		want       analytics.Span
	}{
		{"p", now.Add(-24 * time.Hour), now, 1, analytics.Span{Start: day(14), End: day(16)}},
		{"p", now.Add(-20 * time.Hour), now.Add(-time.Hour), 1, analytics.Span{Start: day(14), End: day(16)}},
		// Ending at midnight touches the day before only.
		{"p", day(14), day(15), 2, analytics.Span{Start: day(14), End: day(15)}},
		{"q", now.Add(-24 * time.Hour), now, 3, analytics.Span{Start: day(14), End: day(16)}},
	}
	for i, c := range cases {
		found, err := s.signalsOf(context.Background(), c.project, analytics.Span{Start: c.start, End: c.end})
		if err != nil || len(found) != 1 || found[0].Agent != c.project {
			t.Fatalf("case %d: %v %v", i, found, err)
		}
		if len(judged) != c.judges || judged[len(judged)-1] != c.want {
			t.Fatalf("case %d: judged %v, want %d judgements, the last %v", i, judged, c.judges, c.want)
		}
	}
}
