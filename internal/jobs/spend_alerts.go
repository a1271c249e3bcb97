package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/anomaly"
	"github.com/llmcost/llmcost/internal/forecast"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// SpendWatchTick is how often the forecasts and anomalies of the projects
// spending this month are evaluated: a projection moves with each day's
// spend, and an anomalous day is worth hearing of within minutes, not at
// every batch (each evaluation reads a project's month of daily rollups).
const SpendWatchTick = 5 * time.Minute

// ForecastPayload is the data of a budget.forecast_exceeded delivery.
// Money is USD as a JSON number written from exact nano-USD.
type ForecastPayload struct {
	ProjectID        string      `json:"project_id"`
	Month            string      `json:"month"`
	Budget           json.Number `json:"budget"`
	SpendMTD         json.Number `json:"spend_mtd"`
	ForecastMonthEnd json.Number `json:"forecast_month_end"`
	ForecastLow      json.Number `json:"forecast_low"`
	ForecastHigh     json.Number `json:"forecast_high"`
	// ForecastExhaustedAt is the UTC date the projection reaches the
	// budget, null when it does not within the month.
	ForecastExhaustedAt *string `json:"forecast_exhausted_at"`
}

// AnomalyPayload is the data of a spend.anomaly delivery: one day of the
// project's spend (scope "project", agent_name null) or of one agent's.
type AnomalyPayload struct {
	ProjectID      string      `json:"project_id"`
	Day            string      `json:"day"`
	Scope          string      `json:"scope"`
	AgentName      *string     `json:"agent_name"`
	Spend          json.Number `json:"spend"`
	BaselineMedian json.Number `json:"baseline_median"`
	BaselineSpread json.Number `json:"baseline_spread"`
	Threshold      json.Number `json:"threshold"`
}

// SpendWatch evaluates the month's forecast and the day's anomalies of
// every project spending this month, and alerts each once across the
// instances (postgres.ClaimForecastAlert, ClaimAnomalyAlert).
type SpendWatch struct {
	DB  *postgres.DB
	Now func() time.Time
	Log *zap.Logger
}

// Run evaluates every spending project once; it returns how many alerts
// it sent (claimed first). A project's failure does not stop the others.
func (w *SpendWatch) Run(ctx context.Context) (int, error) {
	now := w.Now().UTC()
	today := forecast.DayOf(now)
	projects, err := w.DB.SpendingProjects(ctx, postgres.MonthStart(now))
	if err != nil {
		return 0, err
	}
	sent := 0
	var errs []error
	for _, p := range projects {
		n, err := w.evaluate(ctx, p, now, today)
		sent += n
		if err != nil {
			if ctx.Err() != nil {
				return sent, err
			}
			errs = append(errs, fmt.Errorf("project %s: %w", p.ProjectID, err))
		}
	}
	return sent, errors.Join(errs...)
}

// evaluate reads one project's days (the month's, and the baselines of
// yesterday and today) and alerts what it finds.
func (w *SpendWatch) evaluate(ctx context.Context, p postgres.SpendingProject, now, today time.Time) (int, error) {
	from := today.AddDate(0, 0, -anomaly.Window-1)
	if m := postgres.MonthStart(today); m.Before(from) {
		from = m
	}
	rows, err := w.DB.DailySpend(ctx, p.ProjectID, from, now)
	if err != nil {
		return 0, err
	}
	sent := 0
	if b := p.Budget; b != nil && b.Enabled {
		var before []forecast.Day
		for _, r := range rows {
			if r.Day.Before(today) {
				before = append(before, forecast.Day{Date: r.Day, Nano: r.Nano})
			}
		}
		f := forecast.Project(forecast.Input{Now: now, Daily: before, MonthToDate: p.SpendNano, Budget: b.BudgetNano})
		if f.Exceeds {
			ok, err := w.alertForecast(ctx, p, b.BudgetNano, f, now)
			if err != nil {
				return sent, err
			}
			sent += count(ok)
		}
	}
	byAgent := map[string][]forecast.Day{}
	for _, r := range rows {
		byAgent[r.Agent] = append(byAgent[r.Agent], forecast.Day{Date: r.Day, Nano: r.Nano})
	}
	// Yesterday too: its last calls may have come after the last run.
	for _, a := range anomaly.FindScopes(byAgent, today.AddDate(0, 0, -1), now) {
		ok, err := w.alertAnomaly(ctx, p.ProjectID, a, now)
		if err != nil {
			return sent, err
		}
		sent += count(ok)
	}
	return sent, nil
}

func count(ok bool) int {
	if ok {
		return 1
	}
	return 0
}

func (w *SpendWatch) alertForecast(ctx context.Context, p postgres.SpendingProject, budget int64, f forecast.Forecast, now time.Time) (bool, error) {
	payload := ForecastPayload{ProjectID: p.ProjectID, Month: f.MonthStart.Format("2006-01"), Budget: usdNumber(budget),
		SpendMTD: usdNumber(p.SpendNano), ForecastMonthEnd: usdNumber(f.MonthEnd), ForecastLow: usdNumber(f.Low),
		ForecastHigh: usdNumber(f.High)}
	if f.ExhaustedOn != nil {
		d := f.ExhaustedOn.Format("2006-01-02")
		payload.ForecastExhaustedAt = &d
	}
	env, err := webhook.NewEnvelope(webhook.TypeBudgetForecastExceeded, p.ProjectID, payload, now)
	if err != nil {
		return false, err
	}
	when := "is not reached within the month"
	if payload.ForecastExhaustedAt != nil {
		when = "runs out on " + *payload.ForecastExhaustedAt
	}
	n := postgres.Notice{Type: webhook.TypeBudgetForecastExceeded, Data: env.Data,
		Title: fmt.Sprintf("Spend is projected to reach $%s against a $%s budget in %s",
			payload.ForecastMonthEnd, payload.Budget, payload.Month),
		Body: fmt.Sprintf("$%s spent so far; projected $%s (range $%s–$%s); the budget %s",
			payload.SpendMTD, payload.ForecastMonthEnd, payload.ForecastLow, payload.ForecastHigh, when)}
	return w.DB.ClaimForecastAlert(ctx, p.ProjectID, f.MonthStart, n, env)
}

func (w *SpendWatch) alertAnomaly(ctx context.Context, project string, a anomaly.Scoped, now time.Time) (bool, error) {
	payload := AnomalyPayload{ProjectID: project, Day: a.Day.Format("2006-01-02"), Scope: "project",
		Spend: usdNumber(a.Nano), BaselineMedian: usdNumber(a.Median), BaselineSpread: usdNumber(a.Spread),
		Threshold: usdNumber(a.Threshold)}
	who := "The project"
	if !a.Project() {
		agent := a.Agent
		payload.Scope, payload.AgentName, who = "agent", &agent, "Agent "+agent
	}
	env, err := webhook.NewEnvelope(webhook.TypeSpendAnomaly, project, payload, now)
	if err != nil {
		return false, err
	}
	n := postgres.Notice{Type: webhook.TypeSpendAnomaly, Data: env.Data,
		Title: fmt.Sprintf("%s spent $%s on %s, far above its usual $%s a day", who, payload.Spend, payload.Day, payload.BaselineMedian),
		Body: fmt.Sprintf("The median of the %d days before was $%s; a day above $%s is anomalous",
			a.BaselineDays, payload.BaselineMedian, payload.Threshold)}
	return w.DB.ClaimAnomalyAlert(ctx, project, a.Scope(), a.Day, n, env)
}

// SpendWatchArgs is the periodic evaluation.
type SpendWatchArgs struct{}

// Kind implements river.JobArgs.
func (SpendWatchArgs) Kind() string { return "spend_watch" }

// spendWatchPeriodic inserts an evaluation at start and every tick, one
// queued or running at a time across the instances; a failed one is not
// retried, the next tick is.
func spendWatchPeriodic(tick time.Duration) *river.PeriodicJob {
	return onePeriodic("spend_watch", tick, SpendWatchArgs{})
}

type spendWatchWorker struct {
	river.WorkerDefaults[SpendWatchArgs]
	watch *SpendWatch
}

// Work evaluates every spending project.
func (w *spendWatchWorker) Work(ctx context.Context, _ *river.Job[SpendWatchArgs]) error {
	if w.watch == nil {
		return nil
	}
	n, err := w.watch.Run(ctx)
	if n > 0 && w.watch.Log != nil {
		w.watch.Log.Info("spend alerts sent", zap.Int("alerts", n))
	}
	return err
}
