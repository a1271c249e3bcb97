package alerts

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// Drain sends the alerts ingest queued (postgres.WriteTx.QueueAlerts), on
// any instance: in the transaction that takes them it claims each breach's
// alert key of its hour (agent, subject, kind) and each budget threshold
// of its month, notifies owners and admins of what it claimed first and
// queues the signed deliveries. What another batch or instance alerted
// already is skipped. It returns how many queued rows it took.
//
// Alerts thus follow their batch by up to one drain interval (the
// extension drains every rollup_merge_interval) instead of being written
// in the ingest transaction, which cost a batch that found about twenty
// new breaches a fifth of its time (docs/guardrails.md).
func (h *Hook) Drain(ctx context.Context, db *postgres.DB) (int, error) {
	return db.DrainAlerts(ctx, h.alertQueued, h.rememberDrained)
}

// alertQueued claims, notifies and queues the deliveries of one project's
// queued alerts.
func (h *Hook) alertQueued(ctx context.Context, tx *postgres.WriteTx, p postgres.PendingAlerts) error {
	var envs []webhook.Envelope
	if len(p.Breaches) > 0 {
		bs := make([]guardrail.Breach, len(p.Breaches))
		benvs := make([]webhook.Envelope, len(p.Breaches))
		notices := make([]postgres.Notice, len(p.Breaches))
		for i, q := range p.Breaches {
			bs[i] = q.Breach
			var err error
			if benvs[i], notices[i], err = prepare(webhook.TypeGuardrailBreach, p.ProjectID, breachPayload(p.ProjectID, q.Breach),
				fmt.Sprintf("Guardrail breach: %s", q.Agent),
				fmt.Sprintf("%s by agent %s on %s (%d)", q.Kind, q.Agent, q.Subject, q.Count), q.JudgedAt); err != nil {
				return err
			}
		}
		fresh, err := tx.ClaimBreachAlerts(ctx, p.ProjectID, bs, p.Hour, notices)
		if err != nil {
			return err
		}
		for i := range benvs {
			if fresh[i] { // its notices went with the claim
				envs = append(envs, benvs[i])
			}
		}
	}
	cenvs, err := h.alertCrossings(ctx, tx, p)
	if err != nil {
		return err
	}
	if !p.HasWebhook {
		return nil
	}
	return tx.Enqueue(ctx, append(envs, cenvs...))
}

// alertCrossings claims the queued budget thresholds, month by month,
// notifies owners and admins of those claimed first and returns their
// deliveries.
func (h *Hook) alertCrossings(ctx context.Context, tx *postgres.WriteTx, p postgres.PendingAlerts) ([]webhook.Envelope, error) {
	var envs []webhook.Envelope
	var notices []postgres.Notice
	for rest := p.Crossings; len(rest) > 0; {
		n := 1 // the crossings are in (month, threshold) order
		for n < len(rest) && rest[n].Month.Equal(rest[0].Month) {
			n++
		}
		cs := rest[:n]
		rest = rest[n:]
		ts := make([]int32, len(cs))
		for i, c := range cs {
			ts[i] = c.Threshold
		}
		fresh, err := tx.ClaimThresholds(ctx, p.ProjectID, cs[0].Month, ts)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !slices.Contains(fresh, c.Threshold) {
				continue
			}
			pl := crossingPayload(postgres.Budget{BudgetNano: c.BudgetNano, Mode: c.Mode}, c.Threshold, c.SpendNano, c.Month)
			env, n, err := prepare(webhook.TypeBudgetCrossed, p.ProjectID, pl, fmt.Sprintf("Budget %d%% reached", c.Threshold),
				fmt.Sprintf("Metered spend this month is %s USD of a %s USD budget", pl.SpendMTD, pl.Budget), c.JudgedAt)
			if err != nil {
				return nil, err
			}
			envs, notices = append(envs, env), append(notices, n)
		}
	}
	return envs, tx.Notify(ctx, p.ProjectID, notices)
}

// rememberDrained notes every drained alert as recorded (claimed now or
// before, and committed): this instance's later batches judge them
// alerted and queue nothing for them.
func (h *Hook) rememberDrained(groups []postgres.PendingAlerts) {
	for _, g := range groups {
		for _, b := range g.Breaches {
			h.remember(alertKey{g.ProjectID, b.Agent, b.Subject, string(b.Kind), g.Hour.Truncate(time.Hour)})
		}
		for _, c := range g.Crossings {
			h.rememberThresholds(g.ProjectID, c.Month, []int32{c.Threshold})
		}
	}
}
