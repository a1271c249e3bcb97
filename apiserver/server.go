// Package apiserver is the REST surface: one route table (routes.go), the
// middleware every response passes through (recovery, credentials, rate
// limit), the guard each route declares, and straight-line handlers of the
// one shape func(w, r) error that call the store, the reports layer
// (internal/reports) for the reports that combine several reads, and the
// domain packages.
package apiserver

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/dashboard"
	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/secretbox"
	"github.com/llmcost/llmcost/internal/webhook"
)

// Policies are the current versions of the documents users accept.
type Policies struct {
	TermsVersion   string
	TermsURL       string
	PrivacyVersion string
	PrivacyURL     string
}

// DefaultMaxListLimit is the largest page of a list endpoint when Deps
// sets none.
const DefaultMaxListLimit = 1000

// Deps is what the handlers need; the extension owns all of it.
type Deps struct {
	DB        *postgres.DB
	Catalogue *atomic.Pointer[pricing.Catalogue]
	Logger    *zap.Logger
	Version   string
	// Limiter counts requests per API key, user or client IP: shared by
	// every instance through PostgreSQL (ratelimit.Shared) on an origin,
	// in process memory on a mirror and in tests.
	Limiter ratelimit.Allower
	// MailLimits keeps the hourly mail limits (password-reset requests
	// per address, verification resends per user) for every instance:
	// Redis when the deployment counts there; nil means DB, or process
	// memory without one.
	MailLimits ratelimit.EventLog
	Policies   Policies
	// Now is the clock; tests inject one to check expiry.
	Now func() time.Time
	// Pricing keeps the catalogue in force: sync status and imports. New
	// makes one over Catalogue when it is nil.
	Pricing *catalogsync.Syncer
	// AdminEmails are the deployment admins (pricing import, re-pricing).
	AdminEmails []string
	// Mirror serves only health, the public pricing reads and the
	// estimator, with no database (DB is nil).
	Mirror bool
	// Accounts configures mail and social sign-in for the account routes.
	Accounts Accounts
	// MaxListLimit bounds the limit parameter of list endpoints
	// (DefaultMaxListLimit when 0).
	MaxListLimit int
	// Jobs queues durable background work (account mail); nil sends mail
	// from a goroutine, as tests without a runner do.
	Jobs Jobs
	// Webhooks sends the webhook test delivery; nil refuses the test.
	Webhooks *webhook.Client
	// Backlog decides whether a batch may be stored while the mergers are
	// behind, and holds their lag for the health read and the gauges; nil
	// admits every batch and shows no lag.
	Backlog *backlog.Gate
	// RequestTimeout bounds the work of one request (0: unbounded); the
	// extension sets it a little under the HTTP write timeout, so a
	// request stuck waiting for the database is answered 503 in time.
	RequestTimeout time.Duration
	// Keys seals the provider admin keys of reconciliation connections;
	// nil (no key-encryption secret configured) refuses to store one.
	Keys *secretbox.Box
	// Syncs starts a provider sync soon after "sync now"; nil leaves it to
	// the next periodic run.
	Syncs SyncQueue
}

// Server routes requests through the one route table.
type Server struct {
	Deps
	router *mux.Router
	table  []route
	slots  map[hostext.Slot]*slotHolder
	// offMirror are the routes a mirror knows of but does not serve.
	offMirror map[*mux.Route]bool
	acct      *accountState
	ui        *dashboard.Dashboard
	stop      stopping
	// history keeps the daily spend the budget state's forecast reads.
	history *historyCache
	// signals keeps the anomalous days the reports carry as a signal.
	signals *signalCache
}

// New builds the server and registers its route table.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Pricing == nil && d.Catalogue != nil {
		d.Pricing = catalogsync.New(catalogsync.Options{Catalogue: d.Catalogue})
	}
	if d.MaxListLimit <= 0 {
		d.MaxListLimit = DefaultMaxListLimit
	}
	if d.MailLimits == nil && d.DB != nil {
		d.MailLimits = d.DB
	}
	s := &Server{Deps: d, slots: map[hostext.Slot]*slotHolder{}, offMirror: map[*mux.Route]bool{},
		history: newHistoryCache(d.DB)}
	s.signals = newSignalCache(s.findAnomalies)
	s.acct = newAccountState(d.Now, d.MailLimits)
	s.ui = dashboard.New(dashboard.Deps{API: inProcess{s}, Sessions: browserSessions{s}, Backlog: d.Backlog,
		Now: d.Now, Logger: d.Logger})
	mirror, origin, dash := s.mirrorRoutes(), s.originRoutes(), s.dashboardRoutes()
	s.table = append(append(mirror, origin...), dash...)
	s.router = mux.NewRouter()
	s.mount(mirror, true)
	s.mount(origin, !d.Mirror)
	s.mount(dash, !d.Mirror)
	s.router.NotFoundHandler = respond.Handler(s.Logger, notFound)
	s.router.MethodNotAllowedHandler = respond.Handler(s.Logger, s.methodNotAllowed)
	return s
}

// Handler is the server's root handler with all middleware applied.
func (s *Server) Handler() http.Handler {
	return serverTiming(s.headers(s.recoverer(s.gate(s.deadline(s.credentials(s.rateLimit(s.router)))))))
}
