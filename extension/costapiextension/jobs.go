package costapiextension

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/jobs"
	"github.com/llmcost/llmcost/internal/mail"
)

// JobsConfig configures the background job runner (internal/jobs).
type JobsConfig struct {
	// RetryMin is the wait after a job's first failure; it doubles after
	// each further failure up to RetryMax.
	RetryMin time.Duration `mapstructure:"retry_min"`
	// RetryMax caps the wait between two attempts.
	RetryMax time.Duration `mapstructure:"retry_max"`
	// MailAttempts is how many times an account mail is tried before it
	// is given up; the defaults retry for about 32 hours.
	MailAttempts int `mapstructure:"mail_attempts"`
	// StopTimeout is how long Shutdown lets jobs in flight finish before
	// cancelling them (a cancelled mail is retried by the next instance).
	StopTimeout time.Duration `mapstructure:"stop_timeout"`
	// SweepInterval is how often expired sessions, spent e-mail tokens and
	// finished rate-limit windows are deleted (one instance sweeps).
	SweepInterval time.Duration `mapstructure:"sweep_interval"`
}

// Defaults of the jobs configuration.
const (
	DefaultJobsStopTimeout = 10 * time.Second
	// followMax bounds how long an instance serves an older catalogue than
	// the one another instance put in force.
	followMax = 10 * time.Second
)

func defaultJobsConfig() JobsConfig {
	return JobsConfig{RetryMin: jobs.DefaultBackoff.Min, RetryMax: jobs.DefaultBackoff.Max,
		MailAttempts: jobs.DefaultMailAttempts, StopTimeout: DefaultJobsStopTimeout,
		SweepInterval: jobs.DefaultSweepInterval}
}

func (j JobsConfig) validate() []error {
	var errs []error
	if j.RetryMin < time.Millisecond {
		errs = append(errs, fmt.Errorf("jobs.retry_min: must be ≥ 1ms, got %s", j.RetryMin))
	}
	if j.RetryMax < j.RetryMin {
		errs = append(errs, fmt.Errorf("jobs.retry_max: must be ≥ jobs.retry_min (%s), got %s", j.RetryMin, j.RetryMax))
	}
	if j.MailAttempts < 1 {
		errs = append(errs, fmt.Errorf("jobs.mail_attempts: must be ≥ 1, got %d", j.MailAttempts))
	}
	if j.SweepInterval < time.Second {
		errs = append(errs, fmt.Errorf("jobs.sweep_interval: must be ≥ 1s, got %s", j.SweepInterval))
	}
	if j.StopTimeout <= 0 {
		errs = append(errs, fmt.Errorf("jobs.stop_timeout: must be > 0, got %s", j.StopTimeout))
	}
	return errs
}

// startJobs starts the job runner over the store's pool: account mail and,
// with a sync URL, the periodic catalogue sync, which one instance at a
// time runs while every instance follows the catalogue in force.
func (e *Extension) startJobs(ctx context.Context, mailer mail.Sender) error {
	j, p := e.cfg.Jobs, e.cfg.Pricing
	hooks, err := e.cfg.Webhooks.client()
	if err != nil {
		return err
	}
	e.webhooks = hooks
	cfg := jobs.Config{Pool: e.db.Pool, Logger: e.set.Logger, Mailer: mailer,
		Retry: jobs.Backoff{Min: j.RetryMin, Max: j.RetryMax}, MailAttempts: j.MailAttempts,
		Sync: e.sync, SyncTimeout: p.SyncTimeout,
		Sweeper: e.db, SweepInterval: j.SweepInterval, RateWindow: e.cfg.RateLimit.Window,
		DB: e.db, Webhooks: hooks, WebhookAttempts: e.cfg.Webhooks.Attempts,
		PollOnly: e.db.Pooled(), SpendWatch: &jobs.SpendWatch{DB: e.db, Now: time.Now, Log: e.set.Logger},
		RawStorage: e.db, RawStorageInterval: jobs.DefaultRawStorageInterval}
	if cfg.Providers, err = e.providerSync(); err != nil {
		return err
	}
	if p.SyncURL != "" || p.GenAIPricesURL != "" {
		cfg.SyncInterval = p.SyncInterval
	}
	runner, err := jobs.New(cfg)
	if err != nil {
		return err
	}
	if err := runner.Start(ctx); err != nil {
		return fmt.Errorf("job runner: %w", err)
	}
	e.jobs = runner
	// Alerts judge every ingest transaction; the breaches and budget
	// thresholds it queues are alerted by the drain (notifications and
	// deliveries), which starts once deliveries can be queued.
	e.db.Enqueue = runner.EnqueueWebhooksTx
	// A deleted project's rows are removed by a job queued with the
	// deletion; one whose purge gave up starts again here.
	e.db.EnqueuePurge = runner.EnqueuePurgeTx
	if n, err := runner.ResumePurges(ctx, e.db); err != nil {
		e.set.Logger.Warn("deleted projects' purges not resumed; the next start tries again", zap.Error(err))
	} else if n > 0 {
		e.set.Logger.Info("deleted projects' purges resumed", zap.Int("projects", n))
	}
	// Tag keys declared after calls were stored count those calls by a
	// job queued with the declaration; one that gave up starts again here.
	e.db.EnqueueTagBackfill = runner.EnqueueTagBackfillTx
	if n, err := runner.ResumeTagBackfills(ctx, e.db); err != nil {
		e.set.Logger.Warn("tag back-fills not resumed; the next start tries again", zap.Error(err))
	} else if n > 0 {
		e.set.Logger.Info("tag back-fills resumed", zap.Int("projects", n))
	}
	// Calls landing in DEFAULT (months without a partition: a back-fill)
	// get their months within a round instead of at the hourly run.
	e.merger.also(defaultCheckEvery, e.set.Logger, "partitions for calls in DEFAULT",
		func(ctx context.Context) error {
			held, err := e.db.DefaultHoldsCalls(ctx)
			if err != nil || !held {
				return err
			}
			return runner.StoreRawNow(ctx)
		})
	hook := alerts.New(e.set.Logger, nil)
	e.db.Hook = hook
	e.merger.also(e.cfg.RollupMergeInterval, e.set.Logger, "queued alerts into notifications and deliveries",
		func(ctx context.Context) error {
			_, err := hook.Drain(ctx, e.db)
			return err
		})
	e.sync.Follow(min(p.SyncInterval, followMax))
	e.set.Logger.Info("job runner started", zap.Bool("catalogue_sync", cfg.SyncInterval > 0),
		zap.String("mail_retried_for", cfg.Retry.Span(j.MailAttempts).String()))
	return nil
}

// defaultCheckEvery is how often DEFAULT is checked for calls to move
// into partitions of their own.
const defaultCheckEvery = 30 * time.Second

// stopJobs stops the runner within jobs.stop_timeout; the pool must still
// be open.
func (e *Extension) stopJobs(ctx context.Context) error {
	if e.jobs == nil {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, e.cfg.Jobs.StopTimeout)
	defer cancel()
	err := e.jobs.Stop(sctx)
	e.jobs = nil
	return err
}
