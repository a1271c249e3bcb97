package costapiextension

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensioncapabilities"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver"
	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/jobs"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgserver"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/secretbox"
	"github.com/llmcost/llmcost/internal/webhook"
)

// Extension is the control plane shared by the pipeline components.
type Extension struct {
	cfg *Config
	set extension.Settings

	pg        *privateDB
	db        *postgres.DB
	catalogue atomic.Pointer[pricing.Catalogue]
	sync      *catalogsync.Syncer
	jobs      *jobs.Runner
	redis     *ratelimit.Redis // the rate-limit counter when redis_url is set
	merger    *merger
	backlog   *backlog.Gate
	webhooks  *webhook.Client
	keys      *secretbox.Box // seals provider admin keys; nil without a secret
	api       *apiserver.Server
	server    *http.Server
	done      chan struct{}
	addr      net.Addr
}

var (
	_ extension.Extension                   = (*Extension)(nil)
	_ extensioncapabilities.PipelineWatcher = (*Extension)(nil)
)

func newExtension(cfg *Config, set extension.Settings) *Extension {
	e := &Extension{cfg: cfg, set: set}
	e.catalogue.Store(pricing.Builtin())
	return e
}

// Start opens the store (starting a private PostgreSQL when no URL is set),
// applies migrations and starts serving.
func (e *Extension) Start(ctx context.Context, host component.Host) error {
	if err := e.checkEndpoint(ctx); err != nil {
		return err
	}
	tuneGC(e.set.Logger)
	if e.cfg.Mode == ModeMirror {
		return e.startMirror(ctx, host)
	}
	log := e.set.Logger
	url := string(e.cfg.DatabaseURL)
	if url == "" {
		dir, err := filepath.Abs(e.cfg.DataDir)
		if err != nil {
			return err
		}
		log.Info("no database_url: starting a private PostgreSQL", zap.String("data_dir", dir))
		if e.pg, err = startPrivateDB(ctx, pgserver.Options{DataDir: dir}, log, e.resetPool); err != nil {
			return fmt.Errorf("private PostgreSQL: %w", err)
		}
		url = e.pg.URL()
	}
	if err := e.openDB(ctx, url); err != nil {
		return e.abort(fmt.Errorf("database: %w", err))
	}
	db := e.db
	if err := e.openReplica(db, log); err != nil {
		return e.abort(err)
	}
	applied, err := db.Migrate(ctx, jobs.Migrate(log))
	if err != nil {
		return e.abort(fmt.Errorf("migrations: %w", err))
	}
	log.Info("database ready", zap.Int("migrations_applied", applied))
	e.cacheKeys()
	// Budget-state polls answer from memory (docs/api.md, "Budget state").
	db.CacheBudgets()
	if err := upgradeData(ctx, db, log); err != nil {
		return e.abort(err)
	}
	e.backlog = &backlog.Gate{Limits: backlog.Limits{Rollups: e.cfg.Backpressure.MaxMergeBacklog,
		Runs: e.cfg.Backpressure.MaxRunBacklog}}
	db.OnStored = e.backlog.Stored
	e.merger = startMerger(db, e.cfg.RollupMergeInterval, log, e.backlog)
	e.startPricing(ctx)
	accounts := e.cfg.Accounts.accounts(log)
	keys, err := e.cfg.Reconciliation.keys()
	if err != nil {
		return e.abort(fmt.Errorf("reconciliation.secret_key: %w", err))
	}
	if keys == nil {
		log.Info("no LLMCOST_SECRET_KEY: provider connections cannot be stored (connecting answers 501)")
	}
	e.keys = keys
	if err := e.startJobs(ctx, accounts.Mailer); err != nil {
		return e.abort(err)
	}

	limiter := e.limiter()
	// The hourly mail limits are kept where the request counts are.
	var mailLimits ratelimit.EventLog = db
	if e.redis != nil {
		mailLimits = e.redis
	}
	e.api = apiserver.New(apiserver.Deps{
		DB: db, Catalogue: &e.catalogue, Logger: log, Version: e.set.BuildInfo.Version,
		Limiter: limiter, MailLimits: mailLimits,
		Policies: apiserver.Policies{TermsVersion: e.cfg.Policies.TermsVersion, TermsURL: e.cfg.Policies.TermsURL,
			PrivacyVersion: e.cfg.Policies.PrivacyVersion, PrivacyURL: e.cfg.Policies.PrivacyURL},
		Pricing: e.sync, AdminEmails: e.cfg.adminEmails(),
		Accounts: accounts, Jobs: e.jobs, MaxListLimit: e.cfg.MaxListLimit, Webhooks: e.webhooks,
		// A tenth of the write timeout is left to write the 503.
		RequestTimeout: e.cfg.HTTP.WriteTimeout - e.cfg.HTTP.WriteTimeout/10,
		Backlog:        e.backlog,
		Keys:           keys,
		Syncs:          e.jobs,
	})
	return e.listen(ctx, host)
}

// limiter counts requests in PostgreSQL, or in Redis when redis_url is
// set: several instances share the quota, so it holds for the deployment.
func (e *Extension) limiter() *ratelimit.Shared {
	rl := e.cfg.RateLimit
	var counter ratelimit.Counter = e.db
	if rl.RedisURL != "" {
		e.redis, _ = ratelimit.NewRedis(string(rl.RedisURL), rl.Window) // Validate parsed it
		ratelimit.LogRedisTo(e.set.Logger)
		counter = e.redis
	}
	return ratelimit.NewShared(rl.Requests, rl.Window, counter)
}

// listen starts serving e.api on the configured endpoint.
func (e *Extension) listen(ctx context.Context, host component.Host) error {
	log := e.set.Logger
	ln, err := e.cfg.HTTP.ToListener(ctx)
	if err != nil {
		return e.abort(fmt.Errorf("listen on %s: %w", e.cfg.HTTP.NetAddr.Endpoint, err))
	}
	e.server, err = e.cfg.HTTP.ToServer(ctx, host.GetExtensions(), e.set.TelemetrySettings, e.api.Handler(),
		confighttp.WithErrorHandler(transportError))
	if err != nil {
		ln.Close()
		return e.abort(err)
	}
	e.addr = ln.Addr()
	ln = e.cfg.limitConnections(ln)
	e.done = make(chan struct{})
	go func() {
		defer close(e.done)
		if err := e.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("HTTP server stopped", zap.Error(err))
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	log.Info("llmcost API listening", zap.String("endpoint", ln.Addr().String()))
	return nil
}

// abort releases what Start had opened before it failed.
func (e *Extension) abort(err error) error {
	_ = e.Shutdown(context.Background())
	return err
}

// Shutdown stops serving, then the job runner, closes the pool and stops
// the private database.
func (e *Extension) Shutdown(ctx context.Context) error {
	var errs []error
	if e.sync != nil {
		e.sync.Stop()
	}
	if e.server != nil {
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		errs = append(errs, e.server.Shutdown(sctx))
		cancel()
		<-e.done
		e.server = nil
	}
	if e.api != nil {
		// Mails already promised go out before the pool closes.
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		e.api.Drain(dctx)
		cancel()
	}
	// The runner finishes or hands back its jobs while the pool is open.
	errs = append(errs, e.stopJobs(ctx))
	if e.redis != nil {
		e.redis.Close()
		e.redis = nil
	}
	e.merger.stop()
	e.merger = nil
	if e.db != nil {
		e.db.Close()
		e.db = nil
	}
	if e.pg != nil {
		errs = append(errs, e.pg.Stop(ctx))
		e.pg = nil
	}
	return errors.Join(errs...)
}

// Ready is called once every pipeline runs; nothing to do: the slots the
// receiver filled already serve.
func (e *Extension) Ready() error { return nil }

// NotReady is called before the receivers stop: from here on every route
// answers 503 with Retry-After (never the 404 of a released slot) until
// Shutdown closes the listener; requests already inside a handler finish.
func (e *Extension) NotReady() error {
	if e.api != nil {
		e.api.BeginShutdown()
		e.set.Logger.Info("shutting down: new requests are answered 503 with Retry-After")
	}
	return nil
}

// Fill serves h on the route table's slot until release is called; the
// costevents receiver fills its slots at Start and releases them at
// Shutdown. An empty slot answers 503 with Retry-After.
func (e *Extension) Fill(slot hostext.Slot, h respond.Func) (release func(), err error) {
	if e.cfg.Mode == ModeMirror {
		return func() {}, nil // accepted, never served: the mirror has no pipeline routes
	}
	if e.api == nil {
		return nil, errors.New("costapi extension is not started")
	}
	return e.api.Fill(slot, h)
}

// resetPool drops every pooled connection, after the private server restarted.
func (e *Extension) resetPool() {
	if db := e.db; db != nil {
		db.Reset()
	}
}

// renicedOnce logs, once, whether what's server processes got their
// lower priority.
func (e *Extension) renicedOnce(log *zap.Logger, what string, nice int) func(error) {
	var once sync.Once
	return func(err error) {
		once.Do(func() {
			if err != nil {
				log.Info(what+" run at the reads' CPU priority", zap.Error(err))
				return
			}
			log.Debug(what+" run at a lower CPU priority than the reads", zap.Int("nice", nice))
		})
	}
}

// DB is the store; nil before Start.
func (e *Extension) DB() *postgres.DB { return e.db }

// Catalogue is the price catalogue in force.
func (e *Extension) Catalogue() *pricing.Catalogue { return e.catalogue.Load() }

// Addr is the address the server listens on, for tests that bind port 0.
func (e *Extension) Addr() net.Addr { return e.addr }

// transportError answers confighttp's own refusals (a corrupt gzip stream,
// an unknown Content-Encoding) in the API's error envelope.
func transportError(w http.ResponseWriter, _ *http.Request, msg string, status int) {
	// Answered before the API's middleware: the same headers it sets.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	code := apierr.BadRequest
	if strings.HasPrefix(msg, "unsupported Content-Encoding") {
		code = apierr.UnsupportedMediaType
	}
	if code == apierr.BadRequest && status != 400 {
		code = apierr.Internal
	}
	respond.Error(w, apierr.New(code, msg))
}
