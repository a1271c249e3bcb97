package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// DefaultWebhookAttempts with DefaultBackoff retries a delivery for about
// 32 hours: a receiver down for a day still gets it.
const DefaultWebhookAttempts = 40

// WebhookArgs is one delivery: the envelope's id and body. The url and
// secret are read when it is sent, so a rotated secret signs retries and
// no secret sits in river_job.
type WebhookArgs struct {
	ProjectID string `json:"project_id"`
	ID        string `json:"id"`
	Type      string `json:"type"`
	Body      string `json:"body"`
}

// Kind implements river.JobArgs.
func (WebhookArgs) Kind() string { return "webhook" }

// EnqueueWebhooksTx queues deliveries in tx, the ingest transaction that
// found their events: they exist exactly when the batch does.
func (r *Runner) EnqueueWebhooksTx(ctx context.Context, tx pgx.Tx, envs []webhook.Envelope) error {
	if len(envs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(envs))
	for i, e := range envs {
		body, err := jsonBody(e)
		if err != nil {
			return err
		}
		params[i] = river.InsertManyParams{Args: WebhookArgs{ProjectID: e.ProjectID, ID: e.ID, Type: e.Type, Body: body},
			InsertOpts: &river.InsertOpts{MaxAttempts: r.webhookAttempts}}
	}
	_, err := r.client.InsertManyTx(ctx, tx, params)
	return err
}

// webhookWorker sends deliveries.
type webhookWorker struct {
	river.WorkerDefaults[WebhookArgs]
	db     *postgres.DB
	client *webhook.Client
	log    *zap.Logger
}

// Timeout bounds one attempt a little above the client's own 10 s.
func (w *webhookWorker) Timeout(*river.Job[WebhookArgs]) time.Duration {
	return webhook.Timeout + 5*time.Second
}

// Work sends the delivery once; a project without a webhook any more
// ends the job.
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookArgs]) error {
	if w.db == nil || w.client == nil {
		return errors.New("this instance cannot send webhooks")
	}
	hook, err := w.db.Webhook(ctx, job.Args.ProjectID)
	if err != nil {
		return err
	}
	if hook == nil {
		w.log.Info("webhook removed; delivery dropped", zap.String("id", job.Args.ID))
		return nil
	}
	res := w.client.Send(ctx, hook.URL, hook.Secret, job.Args.ID, []byte(job.Args.Body), time.Now())
	if res.Delivered {
		return nil
	}
	fields := []zap.Field{zap.String("id", job.Args.ID), zap.String("type", job.Args.Type),
		zap.Int("status", res.StatusCode), zap.Int("attempt", job.Attempt), zap.Error(res.Err)}
	if job.Attempt >= job.MaxAttempts {
		w.log.Error("webhook could not be delivered; giving up", fields...)
	} else {
		w.log.Warn("webhook not delivered; will retry", fields...)
	}
	return res.Err
}

func jsonBody(e webhook.Envelope) (string, error) {
	b, err := json.Marshal(e)
	return string(b), err
}
