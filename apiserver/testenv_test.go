package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/mail/smtptest"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/secretbox"
	"github.com/llmcost/llmcost/internal/social"
	"github.com/llmcost/llmcost/internal/social/socialtest"
)

// clock is the injected time source: tests move it instead of sleeping.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// env is one API server over its own database, a real SMTP listener and
// fake identity providers, driven in-process through its full handler.
type env struct {
	t      *testing.T
	srv    *Server
	h      http.Handler
	db     *postgres.DB
	clock  *clock
	smtp   *smtptest.Server
	google *socialtest.Google
	github *socialtest.GitHub
	logs   *observer.ObservedLogs
}

const (
	// testSecret is the deployment's key-encryption secret in tests.
	testSecret   = "test-secret-0123456789abcdef-0123456789"
	testPolicy   = "2026-01-01"
	testPassword = "correct horse battery"
)

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, clock: &clock{now: time.Now().UTC().Truncate(time.Second)}, smtp: smtptest.Start(t),
		google: socialtest.NewGoogle(t), github: socialtest.NewGitHub(t)}
	core, logs := observer.New(zap.DebugLevel)
	e.logs = logs
	e.srv = New(e.deps(zap.New(core)))
	e.h = e.srv.Handler()
	t.Cleanup(func() { e.srv.Drain(context.Background()) })
	return e
}

// deps are the server's dependencies; a test may build a second server
// over the same database with changed ones.
func (e *env) deps(log *zap.Logger) Deps {
	client := &http.Client{Timeout: 5 * time.Second}
	var cat atomic.Pointer[pricing.Catalogue]
	cat.Store(pricing.Builtin())
	keys, err := secretbox.New(testSecret)
	if err != nil {
		e.t.Fatal(err)
	}
	return Deps{DB: e.db, Catalogue: &cat, Logger: log, Keys: keys, Version: "test", Limiter: ratelimit.New(1_000_000, time.Minute),
		Policies: Policies{TermsVersion: testPolicy, PrivacyVersion: testPolicy, TermsURL: "/legal/terms", PrivacyURL: "/legal/privacy"},
		Now:      e.clock.Now,
		Accounts: Accounts{
			Mailer:    &mail.SMTP{Host: e.smtp.Host(), Port: e.smtp.Port(), From: "llmcost <no-reply@llmcost.test>"},
			PublicURL: "https://app.llmcost.test",
			Google: &social.Google{ClientIDs: []string{e.google.ClientID}, Issuers: social.DefaultGoogleIssuers,
				Keys: &social.JWKS{URL: e.google.JWKSURL(), Client: client, Now: e.clock.Now}, Now: e.clock.Now},
			GitHub: &social.GitHub{ClientID: e.github.ClientID, ClientSecret: e.github.ClientSecret,
				TokenURL: e.github.TokenURL(), APIURL: e.github.APIURL(), Client: client},
		}}
}

type resp struct {
	Status int
	Header http.Header
	Body   map[string]any
	List   []any
	Raw    string
}

func (r resp) str(key string) string { s, _ := r.Body[key].(string); return s }

func (r resp) obj(key string) map[string]any { m, _ := r.Body[key].(map[string]any); return m }

func (e *env) do(method, path, bearer string, body any) resp {
	e.t.Helper()
	return e.doAs(e.h, method, path, bearer, body)
}

func (e *env) doAs(h http.Handler, method, path, bearer string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "apiserver-test")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := resp{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.String()}
	if strings.HasPrefix(out.Raw, "[") {
		_ = json.Unmarshal(rec.Body.Bytes(), &out.List)
	} else if out.Raw != "" {
		_ = json.Unmarshal(rec.Body.Bytes(), &out.Body)
	}
	return out
}

func (e *env) must(r resp, status int) resp {
	e.t.Helper()
	if r.Status != status {
		e.t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	return r
}

// user is a registered account.
type user struct {
	ID, Email, Access, Refresh, ProjectID, Key string
}

var userSeq atomic.Int64

func (e *env) register(prefix string) user {
	e.t.Helper()
	email := fmt.Sprintf("%s%d@example.com", prefix, userSeq.Add(1))
	r := e.must(e.do("POST", "/v1/auth/register", "", map[string]any{"email": email, "password": testPassword,
		"name": prefix, "accept_terms": true, "accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy}), 201)
	p := r.obj("default_project")
	return user{ID: r.obj("user")["id"].(string), Email: email, Access: r.str("access_token"), Refresh: r.str("refresh_token"),
		ProjectID: p["id"].(string), Key: p["api_key"].(string)}
}

// verify confirms u's address with the token from the verification mail.
func (e *env) verify(u user) {
	e.t.Helper()
	m := e.smtp.Wait(e.t, u.Email, "Confirm your e-mail", 1)
	e.must(e.do("POST", "/v1/auth/verify-email", "", map[string]string{"token": m.Token(e.t)}), 200)
}

func (e *env) login(email, password string, remember bool) resp {
	e.t.Helper()
	return e.do("POST", "/v1/auth/login", "", map[string]any{"email": email, "password": password, "remember_me": remember})
}
