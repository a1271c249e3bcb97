package apiserver

import (
	"context"
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/postgres"
)

// dayFormat writes a UTC date.
const dayFormat = "2006-01-02"

// projectForecast projects the month of now from the project's cached
// daily history and the month counter read: no round trip but the
// history's, at most once a minute per project.
func (s *Server) projectForecast(ctx context.Context, project string, now time.Time, read postgres.BudgetRead) (forecast.Forecast, []forecast.Day, error) {
	days, err := s.historyOf(ctx, project, now)
	if err != nil {
		return forecast.Forecast{}, nil, err
	}
	in := forecast.Input{Now: now, Daily: days, MonthToDate: read.SpendNano}
	if b := read.Budget; b != nil && b.Enabled {
		in.Budget = b.BudgetNano
	}
	return forecast.Project(in), days, nil
}

// addForecast fills the budget state's forecast fields. The state is what
// enforcement points poll: a history that cannot be read leaves the fields
// null (and is logged) rather than failing the state.
func (s *Server) addForecast(ctx context.Context, st *wire.BudgetState, project string, now time.Time, read postgres.BudgetRead) {
	f, _, err := s.projectForecast(ctx, project, now, read)
	if err != nil {
		if s.Logger != nil {
			s.Logger.Sugar().Warnw("budget state without forecast", "project_id", project, "error", err)
		}
		return
	}
	end, low, high := money(f.MonthEnd), money(f.Low), money(f.High)
	st.ForecastMonthEnd, st.ForecastLow, st.ForecastHigh = &end, &low, &high
	st.ForecastExhaustedAt = dateOf(f.ExhaustedOn)
}

func dateOf(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := t.UTC().Format(dayFormat)
	return &v
}

// analyticsForecast is GET /v1/analytics/forecast.
func (s *Server) analyticsForecast(r *http.Request) (wire.Forecast, error) {
	project := callerOf(r).ProjectID
	now := s.Now().UTC()
	month := postgres.MonthStart(now)
	read, err := s.DB.BudgetState(r.Context(), project, month)
	if err != nil {
		return wire.Forecast{}, err
	}
	f, days, err := s.projectForecast(r.Context(), project, now, read)
	if err != nil {
		return wire.Forecast{}, err
	}
	out := wire.Forecast{ProjectID: project, Currency: "USD", Month: month.Format("2006-01"),
		PeriodEndsAt: ts(alerts.PeriodEnd(month)), SpendMTD: money(read.SpendNano), SpendToday: money(f.TodaySoFar),
		ForecastMonthEnd: money(f.MonthEnd), ForecastLow: money(f.Low), ForecastHigh: money(f.High),
		ForecastExhaustedAt: dateOf(f.ExhaustedOn), ExceedsBudget: f.Exceeds, AsOf: ts(now),
		Method: wire.ForecastMethod{WindowDays: forecast.Window, HistoryDays: f.HistoryDays,
			WeekdayMedian: money(f.Weekday.Median), WeekdayLow: money(f.Weekday.Low), WeekdayHigh: money(f.Weekday.High),
			WeekendMedian: money(f.Weekend.Median), WeekendLow: money(f.Weekend.Low), WeekendHigh: money(f.Weekend.High)},
		History: historyRows(days, historyFrom(f.Today), f.Today), Projection: make([]wire.SpendDayRow, 0, len(f.Projection))}
	if !read.AsOf.IsZero() {
		out.AsOf = ts(read.AsOf)
	}
	if b := read.Budget; b != nil && b.Enabled {
		budget := money(b.BudgetNano)
		out.Budget = &budget
	}
	for _, d := range f.Projection {
		out.Projection = append(out.Projection, wire.SpendDayRow{Day: d.Date.Format(dayFormat), Spend: money(d.Nano)})
	}
	return out, nil
}

// historyRows are the days of [from, to), zero-filled, oldest first.
func historyRows(days []forecast.Day, from, to time.Time) []wire.SpendDayRow {
	byDay := map[time.Time]int64{}
	for _, d := range days {
		byDay[forecast.DayOf(d.Date)] += d.Nano
	}
	out := []wire.SpendDayRow{}
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		out = append(out, wire.SpendDayRow{Day: d.Format(dayFormat), Spend: money(byDay[d])})
	}
	return out
}
