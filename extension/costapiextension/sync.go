package costapiextension

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver"
	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/ratelimit"
)

// startPricing restores the last catalogue saved (with a store) and, on
// the mirror, starts the background network sync (with a store the job
// runner schedules it: see startJobs). Neither can fail or delay start:
// without a saved catalogue, or when the network is absent, the built-in
// prices stay in force and the sync status says why.
func (e *Extension) startPricing(ctx context.Context) {
	opts := catalogsync.Options{
		Catalogue: &e.catalogue, URL: e.cfg.Pricing.SyncURL, GenAIURL: e.cfg.Pricing.GenAIPricesURL,
		TolerancePPM: int64(e.cfg.Pricing.SyncTolerance * 1_000_000), Interval: e.cfg.Pricing.SyncInterval,
		Timeout: e.cfg.Pricing.SyncTimeout, MaxBytes: e.cfg.Pricing.SyncMaxBytes,
		UserAgent: "llmcost/" + e.set.BuildInfo.Version, Logger: e.set.Logger,
	}
	if e.db != nil {
		opts.Store = e.db
	}
	e.sync = catalogsync.New(opts)
	if err := e.sync.Restore(ctx); err != nil {
		e.set.Logger.Warn("could not restore the saved price catalogue; built-in prices are in force until a sync or import",
			zap.Error(err))
	}
	if e.db == nil {
		e.sync.Start() // the mirror syncs alone, in memory; with a store it is a job
	}
}

// startMirror serves health, the public pricing reads and the estimator,
// with no database: nothing is started under data_dir and no URL is used.
// The catalogue still syncs from the network, in memory only.
func (e *Extension) startMirror(ctx context.Context, host component.Host) error {
	e.set.Logger.Info("mirror mode: serving health, public pricing and the estimator; no database")
	e.startPricing(ctx)
	e.api = apiserver.New(apiserver.Deps{
		Catalogue: &e.catalogue, Logger: e.set.Logger, Version: e.set.BuildInfo.Version,
		Limiter: ratelimit.New(e.cfg.RateLimit.Requests, e.cfg.RateLimit.Window),
		Pricing: e.sync, Mirror: true,
	})
	return e.listen(ctx, host)
}
