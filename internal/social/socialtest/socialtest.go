// Package socialtest runs local stand-ins for the identity providers: a
// Google-style JWKS server with a freshly generated RSA key that signs ID
// tokens, and a GitHub-style OAuth token endpoint with the user and e-mails
// API. They are real HTTP servers, so the code under test makes real calls.
package socialtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var b64 = base64.RawURLEncoding

// Google serves a JWKS and signs ID tokens for ClientID.
type Google struct {
	Server   *httptest.Server
	Key      *rsa.PrivateKey
	KID      string
	ClientID string
	// Fetches counts JWKS downloads.
	Fetches atomic.Int64
}

// NewGoogle starts a JWKS server until the test ends.
func NewGoogle(t testing.TB) *Google {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &Google{Key: key, KID: "test-key-1", ClientID: "llmcost-test.apps.googleusercontent.com"}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		g.Fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]string{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": g.KID,
			"n": b64.EncodeToString(key.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		}}})
	}))
	t.Cleanup(g.Server.Close)
	return g
}

// JWKSURL is the key set's address.
func (g *Google) JWKSURL() string { return g.Server.URL + "/oauth2/v3/certs" }

// Claims returns valid claims for a user, issued at now.
func (g *Google) Claims(sub, email string, verified bool, now time.Time) map[string]any {
	return map[string]any{
		"iss": "https://accounts.google.com", "aud": g.ClientID, "sub": sub,
		"email": email, "email_verified": verified, "name": "Google " + sub,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

// Sign returns an RS256 ID token of claims signed with the served key.
func (g *Google) Sign(claims map[string]any) string {
	return g.SignRaw(map[string]any{"alg": "RS256", "kid": g.KID, "typ": "JWT"}, claims, func(in []byte) []byte {
		d := sha256.Sum256(in)
		sig, err := rsa.SignPKCS1v15(rand.Reader, g.Key, crypto.SHA256, d[:])
		if err != nil {
			panic(err)
		}
		return sig
	})
}

// SignRaw builds a token with any header and signer, for forgeries.
func (g *Google) SignRaw(header, claims map[string]any, sign func(signingInput []byte) []byte) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	in := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	return in + "." + b64.EncodeToString(sign([]byte(in)))
}

// GitHubUser is an account at the fake GitHub.
type GitHubUser struct {
	ID     int64
	Login  string
	Name   string
	Emails []GitHubEmail
}

// GitHubEmail is one address of a GitHubUser.
type GitHubEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// GitHub serves the OAuth token endpoint and the user API.
type GitHub struct {
	Server       *httptest.Server
	ClientID     string
	ClientSecret string
	// Down makes every endpoint answer 502.
	Down atomic.Bool

	mu     sync.Mutex
	codes  map[string]GitHubUser
	tokens map[string]GitHubUser
	n      int // codes issued
	m      int // tokens issued
}

// NewGitHub starts the fake until the test ends.
func NewGitHub(t testing.TB) *GitHub {
	t.Helper()
	g := &GitHub{ClientID: "Iv1.testclient", ClientSecret: "gh-test-secret-0123456789",
		codes: map[string]GitHubUser{}, tokens: map[string]GitHubUser{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login/oauth/access_token", g.token)
	mux.HandleFunc("GET /api/user", g.user)
	mux.HandleFunc("GET /api/user/emails", g.emails)
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Down.Load() {
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Server.Close)
	return g
}

// TokenURL is the code-exchange endpoint.
func (g *GitHub) TokenURL() string { return g.Server.URL + "/login/oauth/access_token" }

// APIURL is the API root.
func (g *GitHub) APIURL() string { return g.Server.URL + "/api" }

// Code issues a single-use authorization code for u.
func (g *GitHub) Code(u GitHubUser) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	code := fmt.Sprintf("code%06d", g.n)
	g.codes[code] = u
	return code
}

func (g *GitHub) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	w.Header().Set("Content-Type", "application/json")
	if r.PostForm.Get("client_id") != g.ClientID || r.PostForm.Get("client_secret") != g.ClientSecret {
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "incorrect_client_credentials"})
		return
	}
	g.mu.Lock()
	u, ok := g.codes[r.PostForm.Get("code")]
	delete(g.codes, r.PostForm.Get("code"))
	g.m++
	tok := fmt.Sprintf("gho_test%06d", g.m)
	if ok {
		g.tokens[tok] = u
	}
	g.mu.Unlock()
	if !ok {
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad_verification_code"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"access_token": tok, "token_type": "bearer", "scope": "user:email"})
}

func (g *GitHub) authed(w http.ResponseWriter, r *http.Request) (GitHubUser, bool) {
	g.mu.Lock()
	u, ok := g.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	g.mu.Unlock()
	if !ok {
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
	}
	return u, ok
}

func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	if u, ok := g.authed(w, r); ok {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": u.ID, "login": u.Login, "name": u.Name})
	}
}

func (g *GitHub) emails(w http.ResponseWriter, r *http.Request) {
	if u, ok := g.authed(w, r); ok {
		_ = json.NewEncoder(w).Encode(u.Emails)
	}
}
