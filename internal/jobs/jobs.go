// Package jobs is llmcost's one background job runner: River on the
// service's PostgreSQL. Work that must outlive a request or a process
// (account mail, the periodic price catalogue sync, and later webhook
// deliveries and alerts) is a row in river_job, taken by exactly one
// instance, retried with backoff when it fails. This package and
// internal/postgres are the only importers of pgx: the River client is
// built here over postgres.DB's pool.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// Retention of finished job rows. A mail job's arguments hold the mail's
// body, secret token included, until the cleaner deletes its row: a sent
// mail's row goes soon, a failed one stays a day for the operator to see
// why (by then a verification token has expired, a reset token long ago).
const (
	CompletedRetention = 10 * time.Minute
	FailedRetention    = 24 * time.Hour
)

// Config is what the runner needs; the costapi extension fills it.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *zap.Logger
	// Mailer delivers mail jobs; nil means no SMTP server: SendMail only
	// logs kind and recipient, and nothing is queued.
	Mailer mail.Sender
	// Retry spaces the attempts of a failed job.
	Retry Backoff
	// MailAttempts is how many times a mail is tried before it is given up.
	MailAttempts int
	// Sync, with SyncInterval > 0, runs the catalogue sync as a periodic
	// job: at start, then every SyncInterval, on one instance at a time.
	Sync         *catalogsync.Syncer
	SyncInterval time.Duration
	// SyncTimeout bounds one sync job (the fetch has its own, shorter, bound).
	SyncTimeout time.Duration
	// Sweeper, with SweepInterval > 0, deletes expired sessions, spent
	// e-mail tokens and rate-limit windows older than RateWindow, as a
	// periodic job: at start, then every SweepInterval, once per interval
	// across all instances.
	Sweeper       Sweeper
	SweepInterval time.Duration
	RateWindow    time.Duration
	// DB and Webhooks send webhook deliveries; WebhookAttempts is how many
	// times one is tried (DefaultWebhookAttempts when 0). DB also purges
	// deleted projects.
	DB              *postgres.DB
	Webhooks        *webhook.Client
	WebhookAttempts int
	// Providers, when set, syncs the reconciliation connections: a run
	// every ProviderSyncTick, on one instance at a time.
	Providers *ProviderSync
	// PollOnly, when Pool goes through a transaction pooler, makes River
	// poll for new jobs and for the leader's seat (its own mode for
	// PgBouncer) instead of holding a connection that LISTENs: a job then
	// starts within a second, and a new leader within seconds.
	PollOnly bool
	// SpendWatch, when set, evaluates the forecasts and anomalies of the
	// projects spending this month every SpendWatchTick, on one instance
	// at a time, and alerts each once.
	SpendWatch *SpendWatch
	// RawStorage, with RawStorageInterval > 0, creates events' partitions
	// ahead and drops those retention expired, then deletes the rollups
	// a project's rollup retention expired, as a periodic job: at
	// start, then every RawStorageInterval, on one instance at a time.
	RawStorage         RawStorage
	RawStorageInterval time.Duration
}

// Runner enqueues and works jobs.
type Runner struct {
	client   *river.Client[pgx.Tx]
	mailer   mail.Sender
	log      *zap.Logger
	attempts int
	// webhookAttempts bounds a delivery's tries.
	webhookAttempts int
}

// New builds the runner; Start begins working jobs.
func New(cfg Config) (*Runner, error) {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if err := cfg.Retry.validate(); err != nil {
		return nil, err
	}
	if cfg.MailAttempts < 1 {
		return nil, fmt.Errorf("mail attempts: must be ≥ 1, got %d", cfg.MailAttempts)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &mailWorker{sender: cfg.Mailer, log: cfg.Logger})
	river.AddWorker(workers, &syncWorker{sync: cfg.Sync, timeout: cfg.SyncTimeout})
	river.AddWorker(workers, &sweepWorker{db: cfg.Sweeper, window: cfg.RateWindow, log: cfg.Logger, now: time.Now})
	river.AddWorker(workers, &webhookWorker{db: cfg.DB, client: cfg.Webhooks, log: cfg.Logger})
	river.AddWorker(workers, &providerSyncWorker{sync: cfg.Providers})
	river.AddWorker(workers, &spendWatchWorker{watch: cfg.SpendWatch})
	river.AddWorker(workers, &rawStorageWorker{db: cfg.RawStorage, log: cfg.Logger, now: time.Now})
	purge := &purgeWorker{log: cfg.Logger}
	if cfg.DB != nil {
		purge.db = cfg.DB
	}
	river.AddWorker(workers, purge)
	tags := &tagBackfillWorker{log: cfg.Logger}
	if cfg.DB != nil {
		tags.db = cfg.DB
	}
	river.AddWorker(workers, tags)
	if cfg.WebhookAttempts <= 0 {
		cfg.WebhookAttempts = DefaultWebhookAttempts
	}
	rc := &river.Config{
		Logger:                      riverLogger(cfg.Logger),
		Workers:                     workers,
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 8}, PurgeQueue: {MaxWorkers: 1}},
		RetryPolicy:                 cfg.Retry,
		CompletedJobRetentionPeriod: CompletedRetention,
		CancelledJobRetentionPeriod: FailedRetention,
		DiscardedJobRetentionPeriod: FailedRetention,
		PollOnly:                    cfg.PollOnly,
	}
	if cfg.Sync != nil && cfg.SyncInterval > 0 {
		rc.PeriodicJobs = append(rc.PeriodicJobs, syncPeriodic(cfg.SyncInterval))
	}
	if cfg.Sweeper != nil && cfg.SweepInterval > 0 {
		rc.PeriodicJobs = append(rc.PeriodicJobs, sweepPeriodic(cfg.SweepInterval))
	}
	if cfg.RawStorage != nil && cfg.RawStorageInterval > 0 {
		rc.PeriodicJobs = append(rc.PeriodicJobs, rawStoragePeriodic(cfg.RawStorageInterval))
	}
	if cfg.Providers != nil {
		rc.PeriodicJobs = append(rc.PeriodicJobs, providerSyncPeriodic(ProviderSyncTick))
	}
	if cfg.SpendWatch != nil {
		rc.PeriodicJobs = append(rc.PeriodicJobs, spendWatchPeriodic(SpendWatchTick))
	}
	client, err := river.NewClient(riverpgxv5.New(cfg.Pool), rc)
	if err != nil {
		return nil, fmt.Errorf("job runner: %w", err)
	}
	return &Runner{client: client, mailer: cfg.Mailer, log: cfg.Logger, attempts: cfg.MailAttempts,
		webhookAttempts: cfg.WebhookAttempts}, nil
}

// Start begins working jobs in the background. Its context only bounds
// starting: the runner lives until Stop.
func (r *Runner) Start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.client.Start(context.WithoutCancel(ctx))
}

// Stop stops taking jobs and lets those in flight finish until ctx ends;
// then it cancels them (a cancelled mail is retried later, by any instance)
// and waits at most five seconds more. Call it before the pool closes.
func (r *Runner) Stop(ctx context.Context) error {
	err := r.client.Stop(ctx)
	if err == nil {
		return nil
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if herr := r.client.StopAndCancel(hard); herr != nil {
		return errors.Join(fmt.Errorf("job runner did not stop: %w", herr), err)
	}
	return nil
}
