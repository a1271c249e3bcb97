// Package apiserver is the REST surface: one route table, the middleware
// every response passes through (recovery, credentials, rate limit), and
// straight-line handlers that call the store and the domain packages.
package apiserver

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/catalogsync"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/ratelimit"
)

// Policies are the current versions of the documents users accept.
type Policies struct {
	TermsVersion   string
	TermsURL       string
	PrivacyVersion string
	PrivacyURL     string
}

// Deps is what the handlers need; the extension owns all of it.
type Deps struct {
	DB        *postgres.DB
	Catalogue *atomic.Pointer[pricing.Catalogue]
	Logger    *zap.Logger
	Version   string
	Limiter   *ratelimit.Limiter
	Policies  Policies
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
	// Jobs queues durable background work (account mail); nil sends mail
	// from a goroutine, as tests without a runner do.
	Jobs Jobs
}

// Server routes requests; components may add exact routes while it runs.
type Server struct {
	Deps
	router *mux.Router
	acct   *accountState

	mu      sync.RWMutex
	dynamic map[string]http.Handler // "METHOD /path"
	paths   map[string]bool
}

// New builds the server and its route table.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Pricing == nil && d.Catalogue != nil {
		d.Pricing = catalogsync.New(catalogsync.Options{Catalogue: d.Catalogue})
	}
	s := &Server{Deps: d, dynamic: map[string]http.Handler{}, paths: map[string]bool{}}
	s.acct = newAccountState(d.Now)
	s.router = mux.NewRouter()
	s.routes(s.router)
	s.router.NotFoundHandler = http.HandlerFunc(s.serveDynamic)
	s.router.MethodNotAllowedHandler = http.HandlerFunc(s.serveDynamic)
	return s
}

// Handler is the server's root handler with all middleware applied.
func (s *Server) Handler() http.Handler {
	return s.recoverer(s.credentials(s.rateLimit(s.router)))
}

// Handle registers an exact route ("POST /v1/events/batch") contributed by a
// pipeline component. A gorilla/mux router must not change while serving,
// so these live in a mutex-guarded map consulted after the static table.
func (s *Server) Handle(pattern string, h http.Handler) (func(), error) {
	_, path, ok := splitPattern(pattern)
	if !ok {
		return nil, apierr.Newf(apierr.Internal, "route %q must be \"METHOD /path\"", pattern)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.dynamic[pattern]; dup {
		return nil, apierr.Newf(apierr.Conflict, "route %q is already registered", pattern)
	}
	s.dynamic[pattern] = h
	s.paths[path] = true
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.dynamic, pattern)
		delete(s.paths, path)
		for k := range s.dynamic {
			if _, p, _ := splitPattern(k); p == path {
				s.paths[path] = true
			}
		}
	}, nil
}

func (s *Server) serveDynamic(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	h := s.dynamic[r.Method+" "+r.URL.Path]
	known := s.paths[r.URL.Path]
	s.mu.RUnlock()
	switch {
	case h != nil:
		h.ServeHTTP(w, r)
	case known:
		w.Header().Set("Allow", s.allowed(r.URL.Path))
		apierr.WriteJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": map[string]string{
			"code": apierr.BadRequest, "message": r.Method + " is not allowed on " + r.URL.Path}})
	default:
		apierr.Write(w, apierr.Newf(apierr.NotFound, "no route %s %s", r.Method, r.URL.Path))
	}
}

func (s *Server) allowed(path string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := ""
	for k := range s.dynamic {
		if m, p, _ := splitPattern(k); p == path {
			if out != "" {
				out += ", "
			}
			out += m
		}
	}
	return out
}

func splitPattern(pattern string) (method, path string, ok bool) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ' ' {
			return pattern[:i], pattern[i+1:], i > 0 && i+1 < len(pattern) && pattern[i+1] == '/'
		}
	}
	return "", "", false
}
