package apiserver

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
)

// recoverer turns a handler panic into a logged 500 without the panic text.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.Logger.Error("handler panic", zap.String("path", r.URL.Path), zap.Any("panic", v))
				respond.Error(w, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// credentials resolves the bearer credential once per request into an
// access.Principal. It refuses nothing itself: an invalid API key is answered
// 401 {detail} by rateLimit once the request is counted, and an invalid
// session token only matters to routes that require a session.
func (s *Server) credentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := s.resolve(r)
		next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
	})
}

func (s *Server) resolve(r *http.Request) *access.Principal {
	if s.Mirror { // no accounts on the mirror: every request is anonymous
		return access.NewPrincipal(access.None, nil)
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return access.NewPrincipal(access.None, s.DB)
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		token, ok = strings.CutPrefix(h, "bearer ")
	}
	p := access.NewPrincipal(access.None, s.DB)
	token = strings.TrimSpace(token)
	switch {
	case !ok || token == "":
		p.Err = apierr.New(apierr.Unauthorized, "Authorization must be \"Bearer <credential>\"")
	case authn.IsAPIKey(token):
		p.Err = invalidKey
		if !authn.ValidAPIKey(token) {
			return p
		}
		// A cached look-up where the extension turned the key cache on
		// (postgres.DB.CacheAPIKeys): no round trip for a key seen lately.
		hash := authn.Hash(token)
		projectID, err := s.DB.ProjectIDByKeyHash(r.Context(), hash)
		if err != nil {
			if apierr.As(err).Code != apierr.Unauthorized {
				p.Err = err
			}
			return p
		}
		p.Kind, p.ProjectID, p.KeyHash, p.Err = access.APIKey, projectID, hash, nil
	default:
		userID, sessionID, err := s.DB.SessionUser(r.Context(), authn.Hash(token), s.Now())
		if err != nil {
			p.Err = err
			return p
		}
		p.Kind, p.UserID, p.SessionID = access.Session, userID, sessionID
	}
	return p
}

// invalidKey is answered with the {detail} body beside the envelope
// (docs/api.md "Errors").
var invalidKey = apierr.New(apierr.Unauthorized, "Invalid API key")

// rateLimit counts every request against its API key, session or client IP
// and sets the RateLimit headers on every response. A request whose
// credential failed is counted against its IP, so failed authentication never
// spends a valid key's quota.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := s.Limiter.Allow(r.Context(), limitKey(r))
		if err != nil {
			// Fail open: a database too busy to count is not a reason to
			// refuse; the routes that need it answer 503 themselves.
			s.Logger.Debug("rate limit not counted", zap.Error(err))
		}
		_, window := s.Limiter.Policy()
		period := int(window.Seconds())
		secs := int((d.Reset + 999_999_999) / 1_000_000_000)
		h := w.Header()
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=%d`, d.Limit, period))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, d.Remaining, secs))
		for _, prefix := range []string{"", "X-"} {
			h.Set(prefix+"RateLimit-Limit", strconv.Itoa(d.Limit))
			h.Set(prefix+"RateLimit-Remaining", strconv.Itoa(d.Remaining))
			h.Set(prefix+"RateLimit-Reset", strconv.Itoa(secs))
		}
		if !d.Allowed {
			h.Set("Retry-After", strconv.Itoa(secs))
			_ = respond.JSON(w, http.StatusTooManyRequests, wire.RateLimited{
				Detail:     "Rate limit exceeded: " + strconv.Itoa(d.Limit) + " requests per " + strconv.Itoa(period) + " seconds",
				RetryAfter: secs, Limit: d.Limit, Period: period,
			})
			return
		}
		p := access.FromContext(r.Context())
		if p.Err == invalidKey {
			respond.Detail(w, http.StatusUnauthorized, apierr.Unauthorized, "Invalid API key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func limitKey(r *http.Request) string {
	p := access.FromContext(r.Context())
	switch p.Kind {
	case access.APIKey:
		// Hex: the count may be kept in a text column (PostgreSQL).
		return "key:" + hex.EncodeToString(p.KeyHash)
	case access.Session:
		return "user:" + p.UserID
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}
