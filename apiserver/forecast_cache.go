package apiserver

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/swr"
)

// The budget state is polled often (enforcement points, dashboards) and
// answers from memory (postgres.CacheBudgets); its forecast needs the
// project's daily spend, a read of about a month of daily rollups. The
// complete days barely change (only late calls reach them), so each
// instance keeps a project's days for historyFresh and reads them again
// in the background when a poll finds them older: a poll never waits for
// the database but for a project's first, and the polls of a project make
// at most one read a minute. Today's spend comes from the month counter
// the budget state reads anyway.
const (
	historyFresh  = time.Minute
	historyForget = 10 * time.Minute
)

type historyKey struct {
	project string
	today   time.Time
}

// historyCache holds the daily history of recently polled projects.
type historyCache = swr.Cache[historyKey, []forecast.Day]

func newHistoryCache(db *postgres.DB) *historyCache {
	return swr.New(historyFresh, historyForget, 10*time.Second, func(ctx context.Context, k historyKey) ([]forecast.Day, error) {
		return readHistory(ctx, db, k.project, k.today)
	})
}

// historyFrom is the first day a forecast of today reads: the month's
// first day or the window before today, whichever is earlier.
func historyFrom(today time.Time) time.Time {
	month := postgres.MonthStart(today)
	if w := today.AddDate(0, 0, -forecast.Window); w.Before(month) {
		return w
	}
	return month
}

// readHistory reads the project's metered spend per complete day from
// historyFrom(today) to today.
func readHistory(ctx context.Context, db *postgres.DB, project string, today time.Time) ([]forecast.Day, error) {
	rows, err := db.DailySpend(ctx, project, historyFrom(today), today)
	if err != nil {
		return nil, err
	}
	return projectDays(rows), nil
}

// projectDays sums the agents' days into the project's.
func projectDays(rows []postgres.AgentDay) []forecast.Day {
	byDay := map[time.Time]int64{}
	for _, r := range rows {
		byDay[r.Day] += r.Nano
	}
	out := make([]forecast.Day, 0, len(byDay))
	for d, v := range byDay {
		out = append(out, forecast.Day{Date: d, Nano: v})
	}
	return out
}

// history answers the project's daily history of now's day (swr: a
// poll waits only for a project's first read).
func (s *Server) historyOf(ctx context.Context, project string, now time.Time) ([]forecast.Day, error) {
	return s.history.Get(ctx, historyKey{project, forecast.DayOf(now)}, now)
}
