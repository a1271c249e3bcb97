package social_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/social"
	"github.com/llmcost/llmcost/internal/social/socialtest"
)

func google(t *testing.T, now *time.Time) (*socialtest.Google, *social.Google) {
	fake := socialtest.NewGoogle(t)
	clock := func() time.Time { return *now }
	return fake, &social.Google{ClientIDs: []string{"other-client", fake.ClientID}, Issuers: social.DefaultGoogleIssuers,
		Keys: &social.JWKS{URL: fake.JWKSURL(), Client: &http.Client{Timeout: 5 * time.Second}, Now: clock}, Now: clock}
}

func code(err error) string {
	if err == nil {
		return ""
	}
	return apierr.As(err).Code
}

func TestGoogleAcceptsAValidToken(t *testing.T) {
	now := time.Now()
	fake, g := google(t, &now)
	id, err := g.Verify(context.Background(), fake.Sign(fake.Claims("123", "Ann@Example.com", true, now)))
	if err != nil {
		t.Fatal(err)
	}
	if id != (social.Identity{Provider: "google", Subject: "123", Email: "ann@example.com", EmailVerified: true, Name: "Google 123"}) {
		t.Fatalf("identity %+v", id)
	}
	c := fake.Claims("124", "bob@example.com", false, now)
	c["iss"], c["aud"] = "accounts.google.com", []string{"x", fake.ClientID}
	c["email_verified"] = "false"
	id, err = g.Verify(context.Background(), fake.Sign(c))
	if err != nil || id.EmailVerified {
		t.Fatalf("bare issuer, audience array, unverified e-mail: %+v %v", id, err)
	}
	// The key set is cached: two verifications, one fetch.
	if n := fake.Fetches.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times", n)
	}
}

func TestGoogleRefusesForgedAndStaleTokens(t *testing.T) {
	now := time.Now()
	fake, g := google(t, &now)
	valid := func() map[string]any { return fake.Claims("123", "ann@example.com", true, now) }
	with := func(k string, v any) string { c := valid(); c[k] = v; return fake.Sign(c) }
	without := func(k string) string { c := valid(); delete(c, k); return fake.Sign(c) }
	hs256 := fake.SignRaw(map[string]any{"alg": "HS256", "kid": fake.KID}, valid(), func(in []byte) []byte {
		m := hmac.New(sha256.New, fake.Key.N.Bytes()) // key confusion: the public key as a secret
		m.Write(in)
		return m.Sum(nil)
	})
	none := fake.SignRaw(map[string]any{"alg": "none", "kid": fake.KID}, valid(), func([]byte) []byte { return nil })
	good := fake.Sign(valid())
	parts := strings.Split(good, ".")
	payload := []byte(parts[1])
	payload[5] ^= 1
	flipped := parts[0] + "." + string(payload) + "." + parts[2]
	unknownKid := fake.SignRaw(map[string]any{"alg": "RS256", "kid": "nope"}, valid(), func(in []byte) []byte {
		return []byte(strings.Split(good, ".")[2])
	})
	cases := map[string]string{
		"alg none":            none,
		"HS256 key confusion": hs256,
		"flipped payload":     flipped,
		"wrong audience":      with("aud", "someone-else"),
		"wrong issuer":        with("iss", "https://evil.example.com"),
		"expired":             with("exp", now.Add(-time.Minute).Unix()),
		"no expiry":           without("exp"),
		"not yet valid":       with("nbf", now.Add(time.Hour).Unix()),
		"no subject":          with("sub", ""),
		"unknown key id":      unknownKid,
		"garbage":             "not.a.jwt",
		"two parts":           "a.b",
	}
	for name, tok := range cases {
		if _, err := g.Verify(context.Background(), tok); code(err) != apierr.Unauthorized {
			t.Errorf("%s: got %v, want 401", name, err)
		}
	}
	// Within the 30 s clock skew an expired token still passes; beyond, not.
	if _, err := g.Verify(context.Background(), with("exp", now.Add(-20*time.Second).Unix())); err != nil {
		t.Errorf("within skew: %v", err)
	}
}

func TestJWKSOutageIsTransient(t *testing.T) {
	now := time.Now()
	fake, g := google(t, &now)
	tok := fake.Sign(fake.Claims("1", "a@example.com", true, now))
	fake.Server.Close()
	if _, err := g.Verify(context.Background(), tok); code(err) != apierr.Unavailable {
		t.Fatalf("JWKS down: %v, want unavailable", err)
	}
}

func github(t *testing.T) (*socialtest.GitHub, *social.GitHub) {
	fake := socialtest.NewGitHub(t)
	return fake, &social.GitHub{ClientID: fake.ClientID, ClientSecret: fake.ClientSecret,
		TokenURL: fake.TokenURL(), APIURL: fake.APIURL(), Client: &http.Client{Timeout: 5 * time.Second}}
}

func TestGitHubExchange(t *testing.T) {
	fake, g := github(t)
	u := socialtest.GitHubUser{ID: 42, Login: "octo", Emails: []socialtest.GitHubEmail{
		{Email: "old@example.com", Verified: true}, {Email: "Octo@Example.com", Primary: true, Verified: true}}}
	c := fake.Code(u)
	id, err := g.Exchange(context.Background(), c, "https://app.example.com/cb")
	if err != nil {
		t.Fatal(err)
	}
	if id != (social.Identity{Provider: "github", Subject: "42", Email: "octo@example.com", EmailVerified: true, Name: "octo"}) {
		t.Fatalf("identity %+v", id)
	}
	if _, err := g.Exchange(context.Background(), c, ""); code(err) != apierr.Unauthorized {
		t.Fatalf("reused code: %v", err)
	}
	u.Emails = []socialtest.GitHubEmail{{Email: "x@example.com", Primary: true, Verified: false}}
	if id, err := g.Exchange(context.Background(), fake.Code(u), ""); err != nil || id.EmailVerified {
		t.Fatalf("unverified primary: %+v %v", id, err)
	}
	bad := *g
	bad.ClientSecret = "wrong"
	if _, err := bad.Exchange(context.Background(), fake.Code(u), ""); code(err) != apierr.Unauthorized {
		t.Fatalf("wrong client secret: %v", err)
	}
	fake.Down.Store(true)
	if _, err := g.Exchange(context.Background(), fake.Code(u), ""); code(err) != apierr.Unavailable {
		t.Fatalf("GitHub down: %v", err)
	}
}
