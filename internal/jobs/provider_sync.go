package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/reconcile"
	"github.com/llmcost/llmcost/internal/secretbox"
)

// Provider sync timing.
const (
	// ProviderSyncTick is how often the due connections are looked for:
	// a connection's own interval, its retries and "sync now" are kept in
	// its row, so the tick only bounds how late they start.
	ProviderSyncTick = time.Minute
	// providerLease holds a connection while it syncs; a sync cut short by
	// a crash is taken up again once it ends.
	providerLease = 10 * time.Minute
	// providerBatch is the most connections one run syncs.
	providerBatch = 50
	// resyncDays are the latest days every sync fetches again, settled or
	// not: late corrections on the provider's side are picked up.
	resyncDays = 3
	// retryMin and retryMax space the retries of a provider that was away.
	retryMin = time.Minute
	retryMax = time.Hour
)

// ProviderSync copies the providers' usage and cost reports of every due
// connection into the store.
type ProviderSync struct {
	DB *postgres.DB
	// Keys opens the stored admin keys; nil: none can be read.
	Keys *secretbox.Box
	// Clients by provider name.
	Clients map[string]providers.Client
	// Interval between two syncs of a connection that succeeded.
	Interval time.Duration
	Log      *zap.Logger
	Now      func() time.Time
	// Catalogue is the price catalogue in force (the built-in one when
	// nil), for the drift check's rates.
	Catalogue func() *pricing.Catalogue
}

// RunDue syncs the connections due now; it returns how many it took.
// A connection's failure is recorded in its row, never returned: the
// others still sync.
func (p *ProviderSync) RunDue(ctx context.Context) (int, error) {
	due, err := p.DB.ClaimDueConnections(ctx, p.Now(), providerLease, providerBatch)
	if err != nil {
		return 0, err
	}
	for _, c := range due {
		if err := p.syncOne(ctx, c); err != nil {
			return len(due), err
		}
	}
	return len(due), nil
}

// window is the days a sync fetches: the back-fill on the first sync;
// afterwards the oldest day not final yet, or the last resyncDays days,
// whichever is older, up to today (partial, shown as not final).
func (p *ProviderSync) window(c postgres.Connection, now time.Time) (from, to time.Time) {
	to = providers.Day(now).AddDate(0, 0, 1)
	if !c.Synced {
		return to.AddDate(0, 0, -c.BackfillDays), to
	}
	from = to.AddDate(0, 0, -resyncDays)
	if c.Unsettled != nil && c.Unsettled.Before(from) {
		from = providers.Day(*c.Unsettled)
	}
	if oldest := to.AddDate(0, 0, -reconcile.MaxBackfillDays); from.Before(oldest) {
		from = oldest
	}
	return from, to
}

func (p *ProviderSync) syncOne(ctx context.Context, c postgres.Connection) error {
	now := p.Now()
	log := p.Log.With(zap.String("project_id", c.ProjectID), zap.String("provider", c.Provider))
	client := p.Clients[c.Provider]
	if p.Keys == nil || client == nil {
		msg := "this server has no LLMCOST_SECRET_KEY: the stored admin key cannot be read"
		if client == nil {
			msg = "this server cannot reach " + c.Provider
		}
		return p.DB.RecordSyncFailure(ctx, c, postgres.SyncFailed, msg, postgres.Never)
	}
	key, err := p.Keys.Open(c.KeySealed, reconcile.KeyAAD(c.ProjectID, c.Provider))
	if err != nil {
		return p.DB.RecordSyncFailure(ctx, c, postgres.SyncFailed,
			"the stored admin key does not open with this server's LLMCOST_SECRET_KEY (was the secret changed?): connect the provider again", postgres.Never)
	}
	from, to := p.window(c, now)
	rep, err := client.Fetch(ctx, string(key), providers.Scope{WorkspaceIDs: c.WorkspaceIDs, ProjectIDs: c.ProjectIDs,
		APIKeyIDs: c.APIKeyIDs}, from, to)
	if err == nil {
		log.Info("provider reports synced", zap.Time("from", from), zap.Time("to", to),
			zap.Int("usage_rows", len(rep.Usage)), zap.Int("cost_rows", len(rep.Costs)))
		if err := p.DB.StoreSync(ctx, c, rep, now, now.Add(p.Interval)); err != nil {
			return err
		}
		// The figures are stored whatever the drift check finds; a check
		// that fails runs again with the next sync.
		if err := p.checkDrift(ctx, c, from, to, now); err != nil {
			log.Warn("reconciliation drift check failed", zap.Error(err))
		}
		return nil
	}
	if providers.KindOf(err) == providers.KindAuth {
		log.Warn("provider refused the admin key", zap.Error(err))
		return p.DB.RecordSyncFailure(ctx, c, postgres.SyncFailed,
			fmt.Sprintf("the admin key was refused (%s): connect again with a valid admin key", err), postgres.Never)
	}
	next := now.Add(retryDelay(c.Failures + 1))
	var pe *providers.Error
	if providers.AsError(err, &pe) && pe.RetryAfter > 0 && now.Add(pe.RetryAfter).After(next) {
		next = now.Add(pe.RetryAfter)
	}
	log.Info("provider sync failed; will retry", zap.Error(err), zap.Time("next", next))
	return p.DB.RecordSyncFailure(ctx, c, postgres.SyncRetrying,
		fmt.Sprintf("%s; retrying at %s", err, next.UTC().Format(time.RFC3339)), next)
}

// retryDelay doubles from retryMin to retryMax with the failures.
func retryDelay(failures int) time.Duration {
	d := retryMin
	for i := 1; i < failures && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// ProviderSyncArgs is one run over the due connections.
type ProviderSyncArgs struct{}

// Kind implements river.JobArgs.
func (ProviderSyncArgs) Kind() string { return "provider_sync" }

func providerSyncPeriodic(tick time.Duration) *river.PeriodicJob {
	return onePeriodic("provider_sync", tick, ProviderSyncArgs{})
}

// SyncNow queues a run over the due connections now (a "sync now", a new
// connection's back-fill). It is not unique: a run already going may have
// claimed its connections before this one became due. An extra run costs
// one claim query that finds nothing, and the connections' leases keep
// two runs from syncing one connection at once.
func (r *Runner) SyncNow(ctx context.Context) error {
	_, err := r.client.Insert(ctx, ProviderSyncArgs{}, &river.InsertOpts{MaxAttempts: 1})
	return err
}

type providerSyncWorker struct {
	river.WorkerDefaults[ProviderSyncArgs]
	sync *ProviderSync
}

// Timeout ends a run before its connections' leases do.
func (w *providerSyncWorker) Timeout(*river.Job[ProviderSyncArgs]) time.Duration {
	return providerLease - time.Minute
}

// Work syncs the due connections.
func (w *providerSyncWorker) Work(ctx context.Context, _ *river.Job[ProviderSyncArgs]) error {
	if w.sync == nil {
		return nil
	}
	_, err := w.sync.RunDue(ctx)
	return err
}
