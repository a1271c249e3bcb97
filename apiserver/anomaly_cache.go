package apiserver

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/swr"
)

// The overview, /full and the agent views carry the window's anomalous
// days as a signal (docs/forecast.md). Judging them reads every agent's
// daily spend over the window and the 28 days before it: a read as large
// as the report it rides on, for days that change only as today's spend
// grows. So each instance keeps the judgement of a window's days and
// judges them again in the background once it is older than signalFresh:
// only the first report of a window waits for it, and a report's signal is
// at most about a minute old. GET /v1/analytics/anomalies itself reads
// afresh.
const (
	signalFresh  = time.Minute
	signalForget = 10 * time.Minute
)

// signalKey is a project and the UTC days a window touches: windows that
// touch the same days share a judgement.
type signalKey struct {
	project     string
	first, last time.Time
}

// span is the key's days, the last one whole.
func (k signalKey) span() analytics.Span {
	return analytics.Span{Start: k.first, End: k.last.AddDate(0, 0, 1)}
}

// signalCache holds the judged days of recently read windows.
type signalCache = swr.Cache[signalKey, []anomaly.Scoped]

// newSignalCache judges a key's days with judge (reports.Anomalies).
func newSignalCache(judge func(ctx context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error)) *signalCache {
	return swr.New(signalFresh, signalForget, 30*time.Second, func(ctx context.Context, k signalKey) ([]anomaly.Scoped, error) {
		return judge(ctx, k.project, k.span())
	})
}

// signalsOf answers the anomalous days window w of the project touches.
func (s *Server) signalsOf(ctx context.Context, project string, w analytics.Span) ([]anomaly.Scoped, error) {
	last := w.End.Add(-time.Nanosecond)
	if !last.After(w.Start) {
		last = w.Start
	}
	k := signalKey{project, forecast.DayOf(w.Start), forecast.DayOf(last)}
	return s.signals.Get(ctx, k, s.Now())
}
