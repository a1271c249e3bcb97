package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// Drain alerts the breaches ingest queued (postgres.QueueBreaches), on
// any instance: in the transaction that takes them it claims each alert
// key of their hour (agent, subject, kind), notifies owners and admins of
// the keys it claimed first and queues their signed deliveries. A key
// another batch or instance alerted already this hour is skipped. It
// returns how many queued rows it took.
//
// Alerts thus follow their batch by up to one drain interval (the
// extension drains every rollup_merge_interval) instead of riding in the
// ingest transaction, which would cost a batch that finds new breaches
// some 20 % (docs/guardrails.md).
func (h *Hook) Drain(ctx context.Context, db *postgres.DB) (int, error) {
	return db.DrainBreaches(ctx, h.alertQueued, h.rememberDrained)
}

// alertQueued claims, notifies and queues the deliveries of one
// project's queued breaches of one hour.
func (h *Hook) alertQueued(ctx context.Context, tx *postgres.WriteTx, p postgres.PendingBreaches) error {
	bs := make([]guardrail.Breach, len(p.Breaches))
	envs := make([]webhook.Envelope, len(p.Breaches))
	notices := make([]postgres.Notice, len(p.Breaches))
	for i, q := range p.Breaches {
		bs[i] = q.Breach
		var err error
		if envs[i], notices[i], err = prepare(webhook.TypeGuardrailBreach, p.ProjectID, breachPayload(p.ProjectID, q.Breach),
			fmt.Sprintf("Guardrail breach: %s", q.Agent),
			fmt.Sprintf("%s by agent %s on %s (%d)", q.Kind, q.Agent, q.Subject, q.Count), q.JudgedAt); err != nil {
			return err
		}
	}
	fresh, err := tx.ClaimBreachAlerts(ctx, p.ProjectID, bs, p.Hour, notices)
	if err != nil {
		return err
	}
	if !p.HasWebhook {
		return nil
	}
	var out []webhook.Envelope
	for i := range envs {
		if fresh[i] { // its notices went with the claim
			out = append(out, envs[i])
		}
	}
	return tx.Enqueue(ctx, out)
}

// rememberDrained notes every drained key as recorded (claimed now or
// before, and committed): this instance's later batches of the hour judge
// them alerted and queue nothing.
func (h *Hook) rememberDrained(groups []postgres.PendingBreaches) {
	for _, g := range groups {
		for _, b := range g.Breaches {
			h.remember(alertKey{g.ProjectID, b.Agent, b.Subject, string(b.Kind), g.Hour.Truncate(time.Hour)})
		}
	}
}
